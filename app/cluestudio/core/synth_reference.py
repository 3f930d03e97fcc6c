"""Random, plausible reference class diagrams: new test material for every seed.

Benchmarks that tune on one seed and report on another need diagrams the tuning never saw;
these are drawn from a vocabulary of everyday domain words (classes, attributes with types,
methods with parameters, relation labels) and wired as a connected graph with the relation
types and multiplicities students use. Deterministic per ``random.Random`` state.
"""

from __future__ import annotations

import random

from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)

CLASS_WORDS = (
    "Account", "Address", "Airline", "Album", "Appointment", "Artist", "Author", "Basket",
    "Booking", "Branch", "Building", "Campus", "Category", "Certificate", "Channel", "Clinic",
    "Course", "Customer", "Delivery", "Department", "Device", "Discount", "Driver", "Employee",
    "Event", "Exam", "Flight", "Garage", "Guest", "Invoice", "Journey", "Kitchen", "Lecture",
    "Lesson", "Library", "Licence", "Manager", "Meeting", "Menu", "Message", "Museum",
    "Order", "Owner", "Package", "Parcel", "Passenger", "Payment", "Playlist", "Policy",
    "Project", "Publisher", "Receipt", "Recipe", "Region", "Report", "Reservation",
    "Restaurant", "Review", "Route", "Schedule", "Seat", "Semester", "Sensor", "Shipment",
    "Shop", "Song", "Station", "Student", "Subscription", "Supplier", "Teacher", "Team",
    "Ticket", "Tournament", "Trainer", "Vehicle", "Venue", "Voucher", "Warehouse", "Workshop",
)
ATTRIBUTES = (
    ("name", "String"), ("title", "String"), ("code", "String"), ("email", "String"),
    ("phone", "String"), ("street", "String"), ("city", "String"), ("price", "double"),
    ("amount", "double"), ("quantity", "int"), ("capacity", "int"), ("rating", "int"),
    ("startDate", "Date"), ("endDate", "Date"), ("createdOn", "Date"), ("status", "String"),
    ("active", "boolean"), ("level", "int"), ("weight", "double"), ("duration", "int"),
    ("description", "String"), ("reference", "String"), ("balance", "double"),
    ("seats", "int"), ("number", "String"), ("colour", "String"), ("language", "String"),
    ("deadline", "Date"), ("score", "double"), ("comment", "String"), ("tags", "List<String>"),
)
METHODS = (
    ("cancel", "void", ()), ("confirm", "boolean", ()), ("total", "double", ()),
    ("assign", "void", (("driver", "Driver"),)), ("book", "Booking", (("seat", "Seat"),)),
    ("addItem", "void", (("item", "String"), ("count", "int"))),
    ("reschedule", "void", (("date", "Date"),)), ("isValid", "boolean", ()),
    ("archive", "void", ()), ("notify", "void", (("message", "String"),)),
    ("computeFee", "double", (("days", "int"),)), ("close", "void", ()),
    ("open", "boolean", (("at", "Date"),)), ("rename", "void", (("name", "String"),)),
    ("summary", "String", ()), ("approve", "void", (("by", "String"),)),
)
LABELS = ("owns", "contains", "manages", "books", "uses", "holds", "serves", "runs",
          "belongs to", "issues", "teaches", "visits", "ships", "pays", "reviews")
MULTIPLICITIES = ("1", "0..1", "*", "0..*", "1..*")
_TYPES = (RelationType.ASSOCIATION, RelationType.ASSOCIATION, RelationType.ASSOCIATION,
          RelationType.COMPOSITION, RelationType.AGGREGATION, RelationType.GENERALIZATION,
          RelationType.DEPENDENCY)


def random_reference(rng: random.Random, *, classes: tuple[int, int] = (5, 8)) -> ClassDiagram:
    """A connected class diagram of ``classes[0]..classes[1]`` classes."""
    count = rng.randint(*classes)
    names = rng.sample(CLASS_WORDS, count)
    made = []
    for index, name in enumerate(names):
        attrs = tuple(Attribute(a, t, "-") for a, t in rng.sample(ATTRIBUTES, rng.randint(1, 4)))
        methods = tuple(Method(m, r, tuple(Param(p, t) for p, t in params), "+")
                        for m, r, params in rng.sample(METHODS, rng.randint(0, 2)))
        kind = ClassKind.ABSTRACT if index == 0 and rng.random() < 0.3 else ClassKind.CLASS
        made.append(Class(name, attrs, methods, kind))
    relations = []
    for index in range(1, count):
        other = names[rng.randrange(index)]
        rtype = rng.choice(_TYPES)
        if rtype == RelationType.GENERALIZATION:
            relations.append(Relation(rtype, names[index], other))
            continue
        label = Multiplicity()
        if rng.random() < 0.7:
            label = Multiplicity(rng.choice(MULTIPLICITIES), rng.choice(MULTIPLICITIES))
        name = rng.choice(LABELS) if rng.random() < 0.6 else ""
        relations.append(Relation(rtype, other, names[index], label, name))
    return ClassDiagram(tuple(made), tuple(relations))
