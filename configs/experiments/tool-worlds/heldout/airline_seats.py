from spadework.envs import DeclaredWorld


class AirlineSeatsEnv(DeclaredWorld):
    """An airline's flights and passengers, and the bookings between them."""

    collections = {
        "flights": {
            "code": ["AZ101", "AZ202", "BX303", "BX404", "CY505"],
            "gate": ["A1", "A2", "B1", "B2"],
            "free_seats": [0, 3, 8, 12, 20],
        },
        "passengers": {
            "name": ["Tomas Silva", "Una Kovac", "Vik Rao", "Wen Li", "Xena Moss", "Yuri Petrov"],
            "class": ["economy", "business"],
        },
    }
    links = {"bookings": {"flight_id": "flights", "passenger_id": "passengers"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4
