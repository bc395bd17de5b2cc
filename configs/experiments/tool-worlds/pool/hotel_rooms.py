from spadework.envs import DeclaredWorld


class HotelRoomsEnv(DeclaredWorld):
    """A hotel's guests and rooms, and the stays that book a room for a guest."""

    collections = {
        "guests": {
            "name": ["Greta Ono", "Hal Ruiz", "Iris Vogel", "Jon Baker", "Kai Lund", "Lina Haddad"],
            "tier": ["basic", "silver", "gold"],
            "points": [0, 100, 200, 300, 500],
        },
        "rooms": {
            "number": ["101", "102", "201", "202", "301"],
            "view": ["sea", "garden", "street"],
            "beds": [1, 2, 3],
        },
    }
    links = {"stays": {"guest_id": "guests", "room_id": "rooms"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4
