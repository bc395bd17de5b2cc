"""Lend a library book to a member by calling tools: the task names them, lending takes their ids."""

from spadework.envs import ToolWorld, tool

BOOKS = (("Dune", "Frank Herbert"), ("Emma", "Jane Austen"), ("Beloved", "Toni Morrison"),
         ("Middlemarch", "George Eliot"), ("Solaris", "Stanislaw Lem"), ("Ulysses", "James Joyce"),
         ("Rebecca", "Daphne du Maurier"), ("Kindred", "Octavia Butler"), ("Persuasion", "Jane Austen"),
         ("Neuromancer", "William Gibson"), ("Frankenstein", "Mary Shelley"), ("Dracula", "Bram Stoker"))
MEMBERS = ("Ana Lopez", "Ben Okafor", "Chen Wei", "Dara Singh", "Eli Novak", "Farah Haddad",
           "Greta Lind", "Hugo Mendes", "Iris Tanaka", "Jonas Berg")
LOAN_DAYS = 21


def edition_years(rng, count: int) -> list[int]:
    """``count`` different publication years, oldest first.

    >>> import random
    >>> years = edition_years(random.Random(0), 2)
    >>> len(set(years)) == 2 and years == sorted(years)
    True
    """
    return sorted(rng.sample(range(1950, 2024), count))


class LibraryLendingEnv(ToolWorld):
    """Two editions share the wanted title and only one has a copy in; members are found by name."""

    max_turns = 8

    def new_episode(self) -> str:
        shelf = self.rng.sample(BOOKS, 5)
        years = edition_years(self.rng, 2)
        book_ids = self.rng.sample(range(100, 1000), len(shelf) + 1)
        member_ids = self.rng.sample(range(1, 100), 5)
        names = self.rng.sample(MEMBERS, 5)
        members = [{"id": i, "name": name} for i, name in zip(member_ids, names, strict=True)]
        (title, author), others = shelf[0], shelf[1:]
        lent_out = {"id": book_ids[0], "title": title, "author": author, "year": years[0], "copies": 0}
        on_shelf = {"id": book_ids[1], "title": title, "author": author, "year": years[1],
                    "copies": self.rng.randint(1, 3)}
        editions = [lent_out, on_shelf]
        self.rng.shuffle(editions)
        books = editions + [{"id": i, "title": t, "author": a, "year": self.rng.randint(1950, 2023),
                             "copies": self.rng.randint(0, 3)}
                            for i, (t, a) in zip(book_ids[2:], others, strict=True)]
        self.member = members[0]
        self.book = on_shelf
        loans = [{"id": n, "book_id": lent_out["id"], "member_id": m["id"],
                  "due_in_days": self.rng.randint(1, 20)} for n, m in enumerate(members[1:3], start=1)]
        self.records = {"books": books, "members": members, "loans": loans, "holds": []}
        return (f"{self.member['name']} would like to borrow '{title}'. Lend them a copy, "
                "using the library's tools.")

    @tool
    def lend(self, book_id: int, member_id: int) -> dict:
        """Lend one copy of a book to a member, due back in 21 days.

        Args:
            book_id: the id of the book (its record in books).
            member_id: the id of the member (their record in members).
        """
        book = self.get("books", book_id)
        member = self.get("members", member_id)
        if book["copies"] < 1:
            raise ValueError(f"no copies left of book {book_id}; every copy is out on loan")
        self.update("books", book_id, "copies", book["copies"] - 1)
        loan = {"book_id": book["id"], "member_id": member["id"], "due_in_days": LOAN_DAYS}
        return self.create("loans", loan)

    @tool
    def reserve(self, book_id: int, member_id: int) -> dict:
        """Put a book on hold for a member, to be lent when a copy comes back.

        Args:
            book_id: the id of the book.
            member_id: the id of the member.
        """
        self.get("books", book_id)
        self.get("members", member_id)
        return self.create("holds", {"book_id": book_id, "member_id": member_id})

    def solution(self) -> list[str]:
        return [f"find(collection='books', field='title', value={self.book['title']!r})",
                f"find(collection='members', field='name', value={self.member['name']!r})",
                f"lend(book_id={self.book['id']}, member_id={self.member['id']})"]

    def hint(self) -> str:
        return (f"Two editions carry that title, and only the one from {self.book['year']} has a copy "
                "on the shelf. Lending takes ids, so look the member up by name as well.")
