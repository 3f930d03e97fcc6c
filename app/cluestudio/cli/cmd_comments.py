"""``cluestudio comments``: per-item comments, the comment bank and element-diff suggestions.

    cluestudio comments bank WS [--item classes]                     # list the bank
    cluestudio comments bank WS --add classes "Missing a class" --points -2
    cluestudio comments bank WS --edit UID "New wording" [--points -3]  # every use follows
    cluestudio comments add WS TASK SOURCE ITEM --grader ann "text" | --bank UID
    cluestudio comments overall WS TASK SOURCE --grader ann "text"
    cluestudio comments suggest WS TASK SOURCE --grader ann [--accept 1 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

NAME = "comments"
HELP = "comments per rubric item, the comment bank, and suggestions from the element diff"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="comments_command", required=True)
    bank = sub.add_parser("bank", help="list, add to or edit the comment bank")
    bank.add_argument("workspace", type=Path)
    bank.add_argument("--rubric", default="class-diagram")
    bank.add_argument("--item", help="only this rubric item's comments (listing)")
    bank.add_argument("--add", nargs=2, metavar=("ITEM", "TEXT"))
    bank.add_argument("--edit", nargs=2, metavar=("UID", "TEXT"))
    bank.add_argument("--points", type=float, default=None,
                      help="point adjustment (±100; --add: 0, --edit: unchanged if left out)")
    add = sub.add_parser("add", help="comment on a rubric item of a grader's rating")
    overall = sub.add_parser("overall", help="the overall comment of a grader's rating")
    suggest = sub.add_parser("suggest", help="list (and accept) the element diff's suggestions")
    for command in (add, overall, suggest):
        command.add_argument("workspace", type=Path)
        command.add_argument("task")
        command.add_argument("source")
    add.add_argument("item")
    add.add_argument("text", nargs="?", default="")
    add.add_argument("--bank", help="use this bank comment (its uid)")
    overall.add_argument("text")
    suggest.add_argument("--accept", type=int, nargs="+", default=[], metavar="N")
    for command in (add, overall, suggest):
        command.add_argument("--grader", required=True)
    for command in (bank, add, overall, suggest):
        command.add_argument("--json", action="store_true")


def _submission(ws: Any, task: str, source: str) -> int:
    from cluestudio.core.errors import ClueStudioError

    found = ws.find_submission(task, source)
    if found is None:
        raise ClueStudioError(f"{ws.path}: no submission {task}/{source}")
    return int(found.id)


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json, safe_text
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.rubric import rubric_id_for_kind
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.feedback import (
        AddItemComment,
        SaveBankComment,
        SetOverallComment,
        comment_bank,
    )

    with open_workspace(args.workspace, create=False) as ws:
        if args.comments_command == "bank":
            if args.add:
                uid = ws.execute(SaveBankComment(args.rubric, args.add[0], args.add[1],
                                                 args.points or 0.0)).result
                print(uid)
                return 0
            if args.edit:
                current = {b.uid: b for b in comment_bank(ws)}
                if args.edit[0] not in current:
                    raise ClueStudioError(f"{args.workspace}: no bank comment {args.edit[0]}")
                edited = current[args.edit[0]]
                changes = ws.execute(SaveBankComment(edited.rubric_id, edited.item_id,
                                                     args.edit[1],
                                                     edited.points if args.points is None
                                                     else args.points, uid=edited.uid))
                print(f"{args.edit[0]}: {len(changes.ratings)} submissions use it")
                return 0
            bank = comment_bank(ws, args.rubric, args.item)
            if args.json:
                print_json([vars(b) for b in bank])
            for b in [] if args.json else bank:
                print(safe_text(f"{b.uid}  {b.item_id:14} {b.points:+g}  used {b.uses}×  "
                                f"{b.text}"))
            return 0
        sid = _submission(ws, args.task, args.source)
        task = ws.task(args.task)
        rubric_id = rubric_id_for_kind(task.diagram_kind if task else "class")
        if args.comments_command == "add":
            uid = ws.execute(AddItemComment(sid, args.grader, rubric_id, args.item,
                                            text=args.text, bank_uid=args.bank)).result
            print(uid)
            return 0
        if args.comments_command == "overall":
            ws.execute(SetOverallComment(sid, args.grader, rubric_id, args.text))
            return 0
        from cluestudio.app.feedback_suggestions import accept, suggest

        found = suggest(ws, sid, args.grader)
        accepted = []
        for number in args.accept:
            if not 1 <= number <= len(found):
                raise ClueStudioError(f"no suggestion {number}; there are {len(found)}")
            accept(ws, sid, args.grader, found[number - 1])
            accepted.append(found[number - 1])
    if args.json:
        print_json({"suggestions": [vars(s) for s in found],
                    "accepted": [vars(s) for s in accepted]})
        return 0
    for number, suggestion in enumerate(found, 1):
        mark = "accepted " if suggestion in accepted else ""
        print(safe_text(f"{number:3}. [{suggestion.item_id}] {mark}{suggestion.text}"))
    return 0
