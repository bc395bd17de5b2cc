"""The records of a ``ToolWorld`` and the generic operations on them, as pure functions.

Standard library only: this module is copied into the sandbox. ``records`` maps a collection's
name to a list of records; each record is a dict with an int ``id``, unique in its collection.
Every operation raises ``ValueError`` naming what exists when asked for what does not.
"""

from __future__ import annotations

import json
import math
from typing import Any

Records = dict[str, list[dict[str, Any]]]
SHOWN_IDS = 30
"""The most ids an error message lists."""
TRUE_WORDS = frozenset({"true", "yes", "1"})
FALSE_WORDS = frozenset({"false", "no", "0"})
EXAMPLE = "e.g. {'books': [{'id': 1, 'title': 'Dune'}]}"


def records_problem(records: Any) -> str | None:
    """What is wrong with a world's records, or None.

    >>> records_problem({"books": [{"id": 1}, {"id": 1}]})
    "self.records['books'] has two records with id 1; ids must be unique in a collection"
    >>> records_problem({"books": [{"title": "Dune"}]})
    "record 1 of self.records['books'] has no int 'id'; give every record an int id"
    """
    if not isinstance(records, dict) or not records:
        shown = "empty" if isinstance(records, dict) else f"a {type(records).__name__}"
        return f"new_episode() must set self.records to a dict of collections, {EXAMPLE}; it is {shown}"
    for name, items in records.items():
        if not isinstance(name, str) or not isinstance(items, list):
            return f"self.records[{name!r}] must be a list of records (dicts), {EXAMPLE}"
        ids = set()
        for position, item in enumerate(items, start=1):
            where = f"record {position} of self.records[{name!r}]"
            if not isinstance(item, dict):
                return f"{where} is a {type(item).__name__}; make it a dict"
            if not isinstance(item.get("id"), int) or isinstance(item.get("id"), bool):
                return f"{where} has no int 'id'; give every record an int id"
            if item["id"] in ids:
                return (f"self.records[{name!r}] has two records with id {item['id']}; "
                        "ids must be unique in a collection")
            ids.add(item["id"])
    return None


def collection(records: Records, name: str) -> list[dict[str, Any]]:
    """The records of a collection (its name's case does not matter when it is unambiguous).

    >>> collection({"books": [{"id": 1}]}, "Books")
    [{'id': 1}]
    >>> collection({"books": [], "members": []}, "book")
    Traceback (most recent call last):
    ...
    ValueError: no collection 'book'; the collections are books, members
    """
    if name in records:
        return records[name]
    alike = [known for known in records if known.lower() == str(name).strip().lower()]
    if len(alike) == 1:
        return records[alike[0]]
    raise ValueError(f"no collection '{name}'; the collections are {', '.join(records)}")


def record(records: Records, name: str, id: int) -> dict[str, Any]:
    """The record of a collection with that id.

    >>> record({"books": [{"id": 1}, {"id": 2}]}, "books", 9)
    Traceback (most recent call last):
    ...
    ValueError: no record with id 9 in books; its ids are 1, 2
    """
    items = collection(records, name)
    for item in items:
        if item["id"] == id:
            return item
    ids = [str(item["id"]) for item in items]
    shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
    known = f"its ids are {shown}" if ids else "it is empty"
    raise ValueError(f"no record with id {id} in {name}; {known}")


def fields(items: list[dict[str, Any]]) -> list[str]:
    """The fields the records of a collection have, in order of first appearance."""
    return list(dict.fromkeys(key for item in items for key in item))


def find(records: Records, name: str, field: str, value: Any) -> list[dict[str, Any]]:
    """The records of a collection whose ``field`` equals ``value`` (numbers as numbers, text
    without regard to case or surrounding spaces).

    >>> books = {"books": [{"id": 1, "title": "Dune", "copies": 2}, {"id": 2, "title": "Emma", "copies": 0}]}
    >>> find(books, "books", "title", "dune"), find(books, "books", "copies", "0")
    ([{'id': 1, 'title': 'Dune', 'copies': 2}], [{'id': 2, 'title': 'Emma', 'copies': 0}])
    """
    items = collection(records, name)
    known = fields(items)
    if items and field not in known:
        raise ValueError(no_field(name, field, known))
    return [item for item in items if field in item and same_value(item[field], value)]


def no_field(name: str, field: str, known: list[str]) -> str:
    """The message for a field that the records of a collection do not have."""
    return f"the records of {name} have no field '{field}'; their fields are {', '.join(known)}"


def same_value(stored: Any, given: Any) -> bool:
    """Whether a value given in a call matches a stored one.

    >>> same_value(3, "3.0"), same_value("Dune ", "dune"), same_value(True, "yes"), same_value(3, "x")
    (True, True, True, False)
    """
    if stored == given and type(stored) is type(given):
        return True
    if isinstance(stored, bool) or isinstance(given, bool):
        return _as_bool(given) is stored if isinstance(stored, bool) else False
    if isinstance(stored, (int, float)):
        number = _as_number(given)
        return number is not None and number == stored
    if isinstance(stored, str) and isinstance(given, (str, int, float)):
        return stored.strip().lower() == str(given).strip().lower()
    return bool(stored == given)


def create(records: Records, name: str, values: dict[str, Any]) -> dict[str, Any]:
    """A new record appended to a collection, with the next id (the largest one plus 1).

    >>> world = {"loans": [{"id": 4, "book": 1, "days": 14}]}
    >>> create(world, "loans", {"book": "2", "days": 7})
    {'id': 5, 'book': 2, 'days': 7}
    """
    items = collection(records, name)
    if not isinstance(values, dict):
        raise ValueError(f"a new record's fields are a dict of field: value, not {type(values).__name__}")
    if "id" in values:
        raise ValueError("create() gives the new record its id; leave 'id' out of the fields")
    known = fields(items)
    unknown = [key for key in values if items and key not in known]
    if unknown:
        raise ValueError(no_field(name, unknown[0], known))
    samples = {key: next(item[key] for item in items if key in item) for key in values if key in known}
    new = {"id": max((item["id"] for item in items), default=0) + 1}
    new.update({key: convert_like(samples[key], value, key) if key in samples else value
                for key, value in values.items()})
    items.append(new)
    return new


def update(records: Records, name: str, id: int, field: str, value: Any) -> dict[str, Any]:
    """The record with one field changed; the value takes the type the field holds.

    >>> update({"books": [{"id": 1, "copies": 2}]}, "books", 1, "copies", "3")
    {'id': 1, 'copies': 3}
    """
    item = record(records, name, id)
    if field == "id":
        raise ValueError("the id of a record cannot change; create a new record instead")
    if field not in item:
        raise ValueError(f"record {id} of {name} has no field '{field}'; its fields are {', '.join(item)}")
    item[field] = convert_like(item[field], value, field)
    return item


def delete(records: Records, name: str, id: int) -> dict[str, Any]:
    """The record, removed from its collection."""
    item = record(records, name, id)
    items = collection(records, name)
    items.remove(item)
    return item


def move(records: Records, name: str, id: int, to: str) -> dict[str, Any]:
    """The record, moved to the end of another collection; it keeps its id unless that one is taken
    there, when it gets the next id of its new collection.

    >>> world = {"shelf": [{"id": 1, "title": "Dune"}], "cart": [{"id": 1, "title": "Emma"}]}
    >>> move(world, "shelf", 1, "cart"), world["shelf"]
    ({'id': 2, 'title': 'Dune'}, [])
    """
    target = collection(records, to)
    source = collection(records, name)
    if target is source:
        raise ValueError(f"record {id} is in {name} already; move it to another collection")
    item = record(records, name, id)
    source.remove(item)
    if any(other["id"] == item["id"] for other in target):
        item["id"] = max(other["id"] for other in target) + 1
    target.append(item)
    return item


def convert_like(existing: Any, value: Any, field: str) -> Any:
    """``value`` as the type of the value a field holds (text is read as that type).

    >>> convert_like(2, "5", "copies"), convert_like(1.5, 2, "price"), convert_like(False, "yes", "paid")
    (5, 2.0, True)
    >>> convert_like(["a"], '["b", "c"]', "tags"), convert_like(None, "14", "due")
    (['b', 'c'], 14)
    >>> convert_like("x", 3, "note")
    '3'
    """
    wanted = type(existing)
    if existing is None:
        return _from_text(value) if isinstance(value, str) else value
    converted: object
    if isinstance(existing, bool):
        converted = _as_bool(value)
    elif isinstance(existing, int):
        number = _as_number(value)
        converted = int(number) if number is not None and float(number).is_integer() else None
    elif isinstance(existing, float):
        number = _as_number(value)
        converted = None if number is None else float(number)
    elif isinstance(existing, str):
        converted = value if isinstance(value, str) else None if isinstance(value, (bool, list, dict)) \
            else str(value)
    else:
        converted = _from_text(value) if isinstance(value, str) else value
        converted = converted if isinstance(converted, wanted) else None
    if converted is None:
        shown = json.dumps(value, default=str)
        raise ValueError(f"field '{field}' holds {_kind(existing)}; {shown} is not one")
    return converted


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    return {int: "whole numbers", float: "numbers", str: "text", list: "lists", dict: "dicts"}.get(
        type(value), f"{type(value).__name__} values")


def _as_number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in TRUE_WORDS else False if text in FALSE_WORDS else None


def _from_text(text: str) -> Any:
    """Text read as JSON when it is JSON (a number, a list, true), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text
