"""A city's service functions: the task asks for one or two of them with every argument in its
words; solved when exactly those calls were made (in any order)."""

import json

from spadework.envs import ToolEnv, tool

STREETS = ["Elm Street", "Harbour Road", "Mill Lane", "Station Square", "Oak Avenue"]
ROUTES = [4, 11, 23, 37, 52]


class CityServicesEnv(ToolEnv):
    """Reports, permits, bus times, court bookings and bin collections."""

    max_turns = 3

    def new_episode(self) -> str:
        self.made = {}
        r = self.rng
        street, route = r.choice(STREETS), r.choice(ROUTES)
        number, hour, weeks = r.randint(1, 120), r.randint(7, 21), r.choice([4, 12, 26])
        kind = r.choice(["pothole", "broken streetlight", "graffiti"])
        requests = [
            (f"Report a {kind} at {number} {street}.",
             f"report_issue(kind={kind!r}, address='{number} {street}')"),
            (f"Renew the parking permit of plate KX-{number:03d} for {weeks} weeks.",
             f"renew_permit(plate='KX-{number:03d}', weeks={weeks})"),
            (f"When is the next bus on route {route} from {street}?",
             f"next_bus(route={route}, stop={street!r})"),
            (f"Book tennis court {number % 4 + 1} at {hour}:00 for two hours.",
             f"book_court(court={number % 4 + 1}, hour={hour}, hours=2)"),
            (f"Which day is the recycling collected at {number} {street}? Include garden waste.",
             f"collection_day(address='{number} {street}', garden_waste=True)"),
        ]
        chosen = r.sample(requests, 2 if r.random() < 0.3 else 1)
        self._calls = [call for _, call in chosen]
        return " ".join(text for text, _ in chosen)

    def _done(self, function: str, /, **arguments) -> dict:
        self.made[function + json.dumps(arguments, sort_keys=True)] = True
        return {"status": "received", "service": function}

    @tool
    def report_issue(self, kind: str, address: str) -> dict:
        """Report a problem in a public place.

        Args:
            kind: what the problem is.
            address: where it is.
        """
        return self._done("report_issue", kind=kind, address=address)

    @tool
    def renew_permit(self, plate: str, weeks: int) -> dict:
        """Renew a resident's parking permit.

        Args:
            plate: the car's number plate.
            weeks: how many weeks to renew for.
        """
        return self._done("renew_permit", plate=plate, weeks=weeks)

    @tool
    def next_bus(self, route: int, stop: str) -> dict:
        """The next departure of a bus route from a stop.

        Args:
            route: the route number.
            stop: the stop's name.
        """
        return self._done("next_bus", route=route, stop=stop)

    @tool
    def book_court(self, court: int, hour: int, hours: int = 1) -> dict:
        """Book a public sports court.

        Args:
            court: the court's number.
            hour: the hour the booking starts, 0-23.
            hours: how long, in hours.
        """
        return self._done("book_court", court=court, hour=hour, hours=hours)

    @tool
    def collection_day(self, address: str, garden_waste: bool = False) -> dict:
        """The day the bins are collected at an address.

        Args:
            address: the address.
            garden_waste: ask for the garden waste collection too.
        """
        return self._done("collection_day", address=address, garden_waste=garden_waste)

    def solution(self) -> list[str]:
        return list(self._calls)

    def hint(self) -> str:
        return "Each request is one function; copy every value the task gives, as it gives it."
