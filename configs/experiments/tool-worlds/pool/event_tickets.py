from spadework.envs import DeclaredWorld


class EventTicketsEnv(DeclaredWorld):
    """A venue's events and the ticket holders who attend them."""

    collections = {
        "events": {
            "name": ["Jazz Night", "Poetry Slam", "Film Club", "Chess Open", "Quiz Hour"],
            "day": ["Mon", "Wed", "Fri", "Sat"],
            "seats": [20, 40, 60, 80],
        },
        "holders": {
            "email": ["ana@mail.org", "bo@mail.org", "cy@mail.org", "di@mail.org", "ed@mail.org"],
            "plan": ["single", "season"],
        },
    }
    links = {"tickets": {"event_id": "events", "holder_id": "holders"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4
