"""A travel desk's independent functions: the task asks for one or two requests with every
argument in its words; solved when exactly those calls were made (in any order)."""

import json

from spadework.envs import ToolEnv, tool

CITIES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Tallinn", "Quito", "Hanoi", "Perth"]
HOTEL_NAMES = ["Harbor Inn", "Maple Lodge", "Grand Orion", "Casa Verde"]


class TravelDeskEnv(ToolEnv):
    """Flights, hotels, visas, weather and currency: each a function of its own."""

    max_turns = 3

    def new_episode(self) -> str:
        self.made = {}
        r = self.rng
        a, b = r.sample(CITIES, 2)
        day, nights, guests = r.randint(1, 28), r.randint(1, 9), r.randint(1, 4)
        amount = r.choice([120, 250.5, 900, 1500])
        requests = [
            (f"Search flights from {a} to {b} leaving 2027-05-{day:02d}.",
             f"search_flights(origin={a!r}, destination={b!r}, date='2027-05-{day:02d}')"),
            (f"Book {nights} nights at the {HOTEL_NAMES[day % 4]} in {b} for {guests} guests.",
             f"book_hotel(hotel={HOTEL_NAMES[day % 4]!r}, city={b!r}, nights={nights}, guests={guests})"),
            (f"What is the weather forecast in {a} for the next {nights} days, in fahrenheit?",
             f"get_forecast(city={a!r}, days={nights}, unit='fahrenheit')"),
            (f"Convert {amount} US dollars to euros.",
             f"convert_currency(amount={amount}, source='USD', target='EUR')"),
            (f"Does a citizen of {a} need a visa to visit {b}? Ask for a transit visa check.",
             f"check_visa(citizenship={a!r}, destination={b!r}, transit=True)"),
        ]
        chosen = r.sample(requests, 2 if r.random() < 0.3 else 1)
        self._calls = [call for _, call in chosen]
        return " ".join(text for text, _ in chosen)

    def _done(self, function: str, /, **arguments) -> dict:
        self.made[function + json.dumps(arguments, sort_keys=True)] = True
        return {"status": "ok", "request": function}

    @tool
    def search_flights(self, origin: str, destination: str, date: str) -> dict:
        """Search the flights between two cities on a day.

        Args:
            origin: the city of departure.
            destination: the city of arrival.
            date: the day of departure, as YYYY-MM-DD.
        """
        return self._done("search_flights", origin=origin, destination=destination, date=date)

    @tool
    def book_hotel(self, hotel: str, city: str, nights: int, guests: int = 1) -> dict:
        """Book a room in a hotel.

        Args:
            hotel: the hotel's name.
            city: the city the hotel is in.
            nights: how many nights.
            guests: how many guests share the room.
        """
        return self._done("book_hotel", hotel=hotel, city=city, nights=nights, guests=guests)

    @tool
    def get_forecast(self, city: str, days: int, unit: str = "celsius") -> dict:
        """The weather forecast of a city.

        Args:
            city: the city.
            days: how many days ahead.
            unit: celsius or fahrenheit.
        """
        return self._done("get_forecast", city=city, days=days, unit=unit)

    @tool
    def convert_currency(self, amount: float, source: str, target: str) -> dict:
        """Convert an amount of money from one currency to another.

        Args:
            amount: the amount to convert.
            source: the currency's three-letter code, e.g. USD.
            target: the three-letter code to convert to.
        """
        return self._done("convert_currency", amount=amount, source=source, target=target)

    @tool
    def check_visa(self, citizenship: str, destination: str, transit: bool = False) -> dict:
        """Whether a traveller needs a visa.

        Args:
            citizenship: where the traveller is a citizen.
            destination: where they travel.
            transit: only passing through.
        """
        return self._done("check_visa", citizenship=citizenship, destination=destination, transit=transit)

    def solution(self) -> list[str]:
        return list(self._calls)

    def hint(self) -> str:
        return "Each request is one function; copy every value the task gives, as it gives it."
