from spadework.envs import DeclaredWorld


class BankAccountsEnv(DeclaredWorld):
    """A small bank's accounts and their owners' branches."""

    collections = {
        "accounts": {
            "holder": ["Ines Park", "Omar Diallo", "Ruth Berg", "Sam Tanaka", "Lea Moreau", "Kofi Mensah"],
            "kind": ["checking", "savings"],
            "balance": [100, 250, 500, 900, 1200],
        },
        "branches": {
            "city": ["Lyon", "Porto", "Gdansk", "Turin"],
            "manager": ["Vera", "Hugo", "Nina", "Paul"],
        },
    }
    links = {}
    tasks = ("update", "transfer")
    steps = 2
    size = 4
