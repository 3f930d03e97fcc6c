"""Packs: a zip of JSON + images that moves work between graders and machines.

Merging keeps every grader's ratings and reviews, keeps every PlantUML revision, and
reports (never overwrites) conflicting edits: two different children of the same revision,
or the same grader's rating differing between workspace and pack. Zip members are checked
against path traversal and size bombs before anything is read.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import zipfile
import zlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.safe_output import atomic_open
from cluestudio.core.workspace import kinds, ops
from cluestudio.core.workspace.images import (
    EXTENSIONS,
    HEIC_SUFFIXES,
    IMAGE_SUFFIXES,
    MAX_IMAGE_BYTES,
    CheckedImage,
    ImageError,
    check_image,
)
from cluestudio.core.workspace.pack_check import check_pack_data
from cluestudio.core.workspace.records import Task, now_iso
from cluestudio.core.workspace.report import ImportFailed, Report
from cluestudio.core.workspace.schema import SCHEMA_VERSION
from cluestudio.core.workspace.store import Workspace

FORMAT = "cluestudio-pack"
PACK_VERSION = 1
# Sizes are counted as the bytes really come out of the decompressor, never taken from the
# zip's headers. data.json of a 1,000-submission course with revisions is a few MB.
MAX_DATA_BYTES = 64 * 1024 * 1024
MAX_MEMBER_BYTES = MAX_IMAGE_BYTES
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
# Python objects cost far more than their JSON: 60 MB of "{}," is 20 million dicts, 1.6 GB.
# A real pack has a few containers and values per record (~10 per rating or revision).
MAX_JSON_CONTAINERS = 1_000_000
MAX_JSON_VALUES = 4_000_000
# An image member is named by its content hash and one of the image suffixes every other
# path accepts; a HEIC member is an image member too, so that it is refused with the
# same message as a HEIC file in a course folder, not as an "unexpected member".
_IMAGE_SUFFIX = "|".join(re.escape(s) for s in (*IMAGE_SUFFIXES, *HEIC_SUFFIXES))
_IMAGE_NAME = re.compile(rf"^images/([0-9a-f]{{64}})({_IMAGE_SUFFIX})$")


def _pack_sections(ws: Workspace, grader: str | None, only: Collection[int] | None = None
                   ) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
    """data.json's sections, each a stream of records read a batch at a time: a pack of a
    large course is written without holding its ratings in memory. ``only``: the
    submissions with these ids (one grader's share of a course)."""
    from cluestudio.core.workspace.feedback_pack import pack_feedback

    conn = ws._reader()
    wanted = None if only is None else set(only)
    key = {int(sid): (task, source) for sid, task, source in conn.execute(
        "SELECT id, task_id, source_id FROM submissions")
        if wanted is None or sid in wanted}
    uid_of = {int(cid): uid for cid, uid in conn.execute("SELECT id, uid FROM conversions")}
    who = (grader,) if grader else ()
    yield "tasks", (vars(t) for t in ws.tasks())
    yield "submissions", (
        {"task_id": s["task_id"], "source_id": s["source_id"], "origin": s["origin"],
         "image_hash": s["image_hash"], "meta": json.loads(s["meta"])}
        for s in ops.stream_rows(conn, "SELECT id, task_id, source_id, origin, image_hash,"
                                       " meta FROM submissions ORDER BY id") if s["id"] in key)
    yield "conversions", (
        {"uid": c["uid"], "task_id": key[c["submission_id"]][0],
         "source_id": key[c["submission_id"]][1], "parent_uid": uid_of.get(c["parent_id"]),
         "puml": c["puml"], "author": c["author"], "author_kind": c["author_kind"],
         "created_at": c["created_at"]}
        for c in ops.stream_rows(conn, "SELECT * FROM conversions ORDER BY id")
        if c["submission_id"] in key)
    yield "ratings", (
        {**{k: r[k] for k in ops.RATING_COLUMNS if k != "submission_id"},
         "scores": json.loads(r["scores"]), "task_id": key[r["submission_id"]][0],
         "source_id": key[r["submission_id"]][1]}
        for r in ops.stream_rows(conn, "SELECT * FROM ratings" + (" WHERE grader = ?"
                                                                  if grader else "")
                                 + " ORDER BY id", who)
        if r["submission_id"] in key)
    yield "reviews", (
        {"task_id": key[r["submission_id"]][0], "source_id": key[r["submission_id"]][1],
         "reviewer": r["reviewer"], "verdict": r["verdict"], "tags": json.loads(r["tags"]),
         "comment": r["comment"], "conversion_uid": uid_of.get(r["conversion_id"]),
         "created_at": r["created_at"]}
        for r in ops.stream_rows(conn, "SELECT * FROM reviews" + (" WHERE reviewer = ?"
                                                                  if grader else "")
                                 + " ORDER BY id", who)
        if r["submission_id"] in key)
    for section, records in pack_feedback(conn, key, grader).items():
        yield section, iter(records)


class PackTooLarge(ClueStudioError):
    """The pack's data would be larger than a merge accepts; nothing was written."""


def _write_data(member: IO[bytes], sections: Iterator[tuple[str, Iterator[dict[str, Any]]]],
                path: Path, images: set[str]) -> dict[str, int]:
    """data.json, record by record, counted; the image hashes it refers to go to ``images``.
    Refused past what :func:`read_pack` accepts: a pack no one can merge is no use."""
    encoder = json.JSONEncoder(ensure_ascii=False)
    counts: dict[str, int] = {}
    written = 0

    def put(text: str) -> None:
        nonlocal written
        data = text.encode("utf-8")
        written += len(data)
        if written > MAX_DATA_BYTES:
            raise PackTooLarge(
                f"{path}: the pack's data is over the {MAX_DATA_BYTES >> 20} MB a merge "
                "accepts; export one grader's work at a time (--grader); nothing was written")
        member.write(data)

    put("{")
    for number, (section, records) in enumerate(sections):
        put(("" if number == 0 else ",") + f"\n{encoder.encode(section)}: [")
        counts[section] = 0
        for record in records:
            put(("\n" if counts[section] == 0 else ",\n") + encoder.encode(record))
            counts[section] += 1
            for field in ("image_hash", "reference_image"):
                if record.get(field) and section in ("tasks", "submissions"):
                    images.add(record[field])
        put("]")
    put("\n}\n")
    return counts


def export_pack(ws: Workspace, path: Path, *, grader: str | None = None,
                submissions: Collection[int] | None = None) -> dict[str, int]:
    """Write a pack of the whole workspace (ratings/reviews of one ``grader`` if given; only
    the ``submissions`` with these ids if given, e.g. one grader's share of a course)."""
    manifest = {"format": FORMAT, "version": PACK_VERSION, "schema": SCHEMA_VERSION,
                "created_at": now_iso(), "grader": grader}
    path.parent.mkdir(parents=True, exist_ok=True)
    hashes: set[str] = set()
    with atomic_open(path, "wb") as handle, \
            zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest, indent=1))
        with zf.open("data.json", "w", force_zip64=True) as member:
            counts = _write_data(member, _pack_sections(ws, grader, submissions), path,
                                 hashes)
        for h in sorted(hashes):
            mime = ops.row(ws._reader(), "SELECT mime FROM blobs WHERE hash=?", (h,))
            ext = EXTENSIONS.get(mime["mime"] if mime else "", "png")
            # Images are already compressed; deflating them again only costs time.
            zf.writestr(f"images/{h}.{ext}", ws.image(h) or b"", zipfile.ZIP_STORED)
    return counts | {"images": len(hashes)}


def _unsafe_name(name: str) -> bool:
    return (name.startswith(("/", "\\")) or "\\" in name or ".." in name.split("/")
            or re.match(r"^[A-Za-z]:", name) is not None)


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, over: str
                 ) -> bytes:
    """A member's bytes, counting what really comes out of the decompressor: the sizes in
    a zip's headers are the sender's word and can lie. ``over``: the limit and what to do,
    said when the member is larger."""
    out = bytearray()
    with zf.open(info) as member:
        while True:
            chunk = member.read(1 << 16)
            if not chunk:
                return bytes(out)
            out.extend(chunk)
            if len(out) > limit:
                raise _TooLarge(info.filename, f"{_unpacked(info, limit)}, over {over}")


def _unpacked(info: zipfile.ZipInfo, limit: int) -> str:
    """How large a member read past ``limit`` is. zipfile never yields more than the size
    its entry lists (a header listing less fails its CRC check instead), so the listed
    size is the member's, and no more of it is inflated to measure it: a large photo and
    a zip bomb are told apart by neither (a white BMP deflates 1000:1, as a bomb does)."""
    if info.file_size <= limit:  # not from zipfile; said without a figure it cannot back
        return f"more than {_megabytes(limit)} unpacked"
    shown = _megabytes(info.file_size)
    if shown == _megabytes(limit):  # "50.0 MB, over the 50 MB limit" would read as a slip
        shown = f"{info.file_size:,} bytes"
    return f"{shown} unpacked"


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MB".replace(".0 MB", " MB")


# An image larger than this is no image any path accepts (a workspace never holds one).
_IMAGE_OVER = (f"the {_megabytes(MAX_MEMBER_BYTES)} limit for one image; scale the image "
               "down (a photo as JPEG of at most 4000×4000 pixels takes a few MB) and pack "
               "it again")


class _TooLarge(Exception):
    def __init__(self, member: str, message: str) -> None:
        super().__init__(message)
        self.member = member


def member_source(pack: Path | str, member: str) -> str:
    """How a pack's member is named in every message: ``PACK:member``."""
    return f"{pack}:{member}"


def _check_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, source: str) -> None:
    """Refuse a member whose first bytes are no image (empty, text, SVG, HEIC, unknown)
    before inflating the rest of it, with the message :func:`check_image` gives for such a
    file on every other path; a header Pillow knows is left to the full check."""
    from PIL import Image, UnidentifiedImageError

    with zf.open(info) as member:
        head = member.read(1 << 16)
    try:
        with Image.open(io.BytesIO(head)):
            return
    except UnidentifiedImageError:
        # raises: the text, empty and HEIC checks need only the head, and Pillow cannot
        # identify it whole if it could not identify its head
        check_image(head, source)
    except Exception:  # a header Pillow reads but finds odd: the full check decides
        return


# What reading a damaged or hostile zip raises: bad headers, bad deflate streams, encrypted
# or unsupported members, a CRC mismatch, a truncated file.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, EOFError,
               OSError, ValueError)


@dataclass(frozen=True)
class PackImage:
    """An image of a pack, checked once and read again when merged, so a pack's images are
    never all in memory at once."""

    path: Path
    member: str
    hash: str

    def load(self, zf: zipfile.ZipFile | None = None) -> CheckedImage:
        """The image, checked again; from ``zf`` (this pack, already open) when given:
        opening a zip reads its whole directory, once per image would be quadratic."""
        if zf is None:
            with zipfile.ZipFile(self.path) as own:
                return self.load(own)
        source = member_source(self.path, self.member)
        try:
            data = _read_member(zf, zf.getinfo(self.member), MAX_MEMBER_BYTES, _IMAGE_OVER)
        except _TooLarge as too_large:  # the pack was replaced since it was read
            raise ImageError(str(too_large), source=source) from too_large
        image = check_image(data, source)
        if image.hash != self.hash:  # the file changed since it was checked
            raise ImageError("content does not match its hash", source=source)
        return image


def read_pack(path: Path, report: Report) -> tuple[dict[str, Any], dict[str, PackImage]]:
    """(data, images by hash) from a pack, after checking every member's name, real size,
    and content; every problem goes into ``report``."""
    source = str(path)
    try:
        zf = zipfile.ZipFile(path)
    except _ZIP_ERRORS as error:
        report.error(source, f"not a readable zip: {error}")
        return {}, {}
    with zf:
        if not _check_names(zf, source, report):
            return {}, {}
        images: dict[str, PackImage] = {}
        budget = MAX_TOTAL_BYTES
        try:
            manifest_bytes = _read_member(
                zf, zf.getinfo("manifest.json"), 1 << 20,
                "the 1 MB a pack's manifest takes: not a ClueStudio pack")
            data_bytes = _read_member(
                zf, zf.getinfo("data.json"), MAX_DATA_BYTES,
                f"the {_megabytes(MAX_DATA_BYTES)} a merge accepts; export one grader's work "
                "at a time (pack export --grader)")
            for info in zf.infolist():
                match = _IMAGE_NAME.match(info.filename)
                if not match:
                    continue
                where = member_source(source, info.filename)
                try:
                    _check_header(zf, info, where)
                    content = (
                        _read_member(zf, info, MAX_MEMBER_BYTES, _IMAGE_OVER)
                        if budget >= MAX_MEMBER_BYTES else _read_member(
                            zf, info, budget, f"what is left of the {_megabytes(MAX_TOTAL_BYTES)}"
                            " a merge accepts for all of a pack's images together; send the "
                            "course in parts (cluestudio team split)"))
                    budget -= len(content)
                    image = check_image(content, where)
                except ImageError as error:
                    report.error(where, error.message)
                    continue
                if image.hash != match.group(1):
                    report.error(where, "content does not match its hash")
                    continue
                images[image.hash] = PackImage(path, info.filename, image.hash)
        except _TooLarge as too_large:
            report.error(member_source(source, too_large.member), str(too_large))
            return {}, {}
        except _ZIP_ERRORS as error:
            report.error(source, f"damaged zip: {error}")
            return {}, {}
    containers = data_bytes.count(b"{") + data_bytes.count(b"[")
    if containers > MAX_JSON_CONTAINERS or data_bytes.count(b",") > MAX_JSON_VALUES:
        report.error(source, f"data.json holds more records than any course ({containers:,} "
                             "objects and lists); not read")
        return {}, {}
    try:
        manifest = json.loads(manifest_bytes)
        data = json.loads(data_bytes)
    except (ValueError, RecursionError) as error:
        report.error(source, f"broken manifest/data: {error or 'nested too deeply'}")
        return {}, {}
    if (not isinstance(manifest, dict) or manifest.get("format") != FORMAT
            or not isinstance(manifest.get("version"), int)
            or manifest["version"] > PACK_VERSION):
        shown = manifest if not isinstance(manifest, dict) else {
            k: manifest.get(k) for k in ("format", "version")}
        report.error(source, f"not a supported pack ({str(shown)[:120]})")
        return {}, {}
    _check_kinds(data, source, report)
    _check_grader(manifest, data, source, report)
    return data, images


def _check_grader(manifest: dict[str, Any], data: Any, source: str, report: Report) -> None:
    """A grader's pack (the manifest names its grader) carries that grader's ratings and
    reviews only: anything under another name would be merged as that person's work."""
    grader = manifest.get("grader")
    if grader is None:
        return  # a whole-workspace pack: every grader's work, named in the merge report
    if not isinstance(grader, str) or not grader.strip():
        report.error(source, f"manifest: bad grader {str(grader)[:80]!r}")
        return
    if not isinstance(data, dict):
        return  # check_pack_data says what is wrong with it
    for section, field in (("ratings", "grader"), ("reviews", "reviewer"),
                           ("item_comments", "grader")):
        records = data.get(section)
        for index, record in enumerate(records if isinstance(records, list) else []):
            name = record.get(field) if isinstance(record, dict) else None
            if name is not None and name != grader:
                report.error(source, f"{section}[{index}]: {field} {str(name)[:80]!r} is not "
                                     f"the pack's grader {grader!r} (refused: a grader's "
                                     "pack carries only their own work)")


def _check_names(zf: zipfile.ZipFile, source: str, report: Report) -> bool:
    """Every member name safe, known and unique; manifest and data present."""
    names: set[str] = set()
    before = len(report.errors)
    for info in zf.infolist():
        name = info.filename
        if _unsafe_name(name):
            report.error(source, f"unsafe path in zip (path traversal): {name!r}")
        elif name in names:
            report.error(source, f"member {name!r} appears twice (which one is meant?)")
        elif name not in ("manifest.json", "data.json") and not _IMAGE_NAME.match(name):
            report.error(source, f"unexpected member {name!r}")
        names.add(name)
    for required in ("manifest.json", "data.json"):
        if required not in names:
            report.error(source, f"missing {required}")
    return len(report.errors) == before


def _check_kinds(data: Any, source: str, report: Report) -> None:
    """Every task's diagram kind is one we know (packs from before kinds say none: class)."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    for task in tasks if isinstance(tasks, list) else []:
        kind = task.get("diagram_kind", kinds.DEFAULT_KIND) if isinstance(task, dict) else None
        if kind is not None and not kinds.is_known(kind):
            report.error(source, f"task {task.get('id')!r}: {kinds.kind_error(kind)}")


def merge_packs(ws: Workspace, paths: list[Path]) -> Report:
    """Merge packs into ``ws`` in one transaction; raises :class:`ImportFailed` on errors.

    Every pack is read and checked first (shape, references, ratings against their rubric);
    one bad record anywhere means nothing is written.
    """
    report = Report()
    loaded = [(str(p), *read_pack(p, report)) for p in paths]
    if report.errors:
        raise ImportFailed(report)
    # What earlier packs of this merge define counts as known to later ones.
    tasks: set[Any] = set()
    submissions: set[Any] = set()
    images: set[str] = set()

    def known_task(task_id: str) -> bool:
        return task_id in tasks or ws.task(task_id) is not None

    def known_submission(task_id: str, source_id: str) -> bool:
        return ((task_id, source_id) in submissions
                or ws.find_submission(task_id, source_id) is not None)

    def known_image(digest: str) -> bool:
        return digest in images or ws.has_image(digest)

    for src, data, pack_images in loaded:
        images.update(pack_images)
        if check_pack_data(data, src, report, known_tasks=known_task,
                           known_submissions=known_submission, known_images=known_image):
            tasks.update(t.get("id") for t in data.get("tasks", []) if isinstance(t, dict))
            submissions.update((s.get("task_id"), s.get("source_id"))
                               for s in data.get("submissions", []) if isinstance(s, dict))
    from cluestudio.core.workspace.feedback_pack import check_feedback

    for src, data, _images in loaded:
        check_feedback(data, src, report)
    if report.errors:
        raise ImportFailed(report)

    def merge_all(conn: sqlite3.Connection) -> None:
        for src, data, images in loaded:
            try:
                _merge(conn, src, data, images, report)
            except (KeyError, TypeError, ValueError, AttributeError, sqlite3.IntegrityError,
                    ImageError) as error:
                # The checks above should have caught it; the transaction still rolls back.
                report.error(src, f"malformed pack data: {error!r}")
                raise ImportFailed(report) from error

    ws.write(merge_all)
    return report


def _merge(conn: sqlite3.Connection, source: str, data: dict[str, Any],
           images: dict[str, PackImage], report: Report) -> None:
    counts = report.counts
    _merge_images(conn, source, data, images, report)
    for t in data.get("tasks", []):
        status = ops.upsert_task(conn, Task(**t)) if ops.row(
            conn, "SELECT id FROM tasks WHERE id=?", (t["id"],)) is None else "kept"
        counts[f"tasks_{status}"] += 1
    sid: dict[tuple[str, str], int] = {}
    for s in data.get("submissions", []):
        key = (s["task_id"], s["source_id"])
        old = ops.row(conn, "SELECT id FROM submissions WHERE task_id=? AND source_id=?", key)
        if old is None:
            sid[key], _ = ops.ensure_submission(conn, *key, s["origin"], s["image_hash"],
                                                s.get("meta"))
            counts["submissions_added"] += 1
        else:
            sid[key] = int(old["id"])
    local_id: dict[str, int] = {}
    for c in data.get("conversions", []):
        _merge_revision(conn, source, c, sid[(c["task_id"], c["source_id"])], local_id, report)
    for r in data.get("ratings", []):
        _merge_rating(conn, source, r, sid[(r["task_id"], r["source_id"])], report)
    for v in data.get("reviews", []):
        _merge_review(conn, source, v, sid[(v["task_id"], v["source_id"])], local_id, report)
    from cluestudio.core.workspace.feedback_pack import merge_feedback

    merge_feedback(conn, data, report, source)


def _merge_images(conn: sqlite3.Connection, source: str, data: dict[str, Any],
                  images: dict[str, PackImage], report: Report) -> None:
    """Store the pack's images that its submissions or tasks refer to and the workspace
    lacks; the rest are said, not stored (a pack must not fill the workspace with images
    nothing shows)."""
    used = {s["image_hash"] for s in data.get("submissions", []) if s["image_hash"]}
    used |= {t["reference_image"] for t in data.get("tasks", []) if t.get("reference_image")}
    unused = len(images.keys() - used)
    if unused:
        report.warning(source, f"{unused} image(s) that no submission or task of the pack "
                               "refers to: not stored")
        report.counts["images_unused"] += unused
    wanted = [images[h] for h in sorted(used & images.keys())
              if ops.row(conn, "SELECT 1 FROM blobs WHERE hash=?", (h,)) is None]
    if not wanted:
        return
    with zipfile.ZipFile(wanted[0].path) as zf:
        for image in wanted:
            ops.put_blob(conn, image.load(zf))
            report.counts["images_added"] += 1


def _merge_revision(conn: sqlite3.Connection, source: str, c: dict[str, Any], sub: int,
                    local_id: dict[str, int], report: Report) -> None:
    existing = ops.row(conn, "SELECT id FROM conversions WHERE uid=?", (c["uid"],))
    if existing is not None:
        local_id[c["uid"]] = int(existing["id"])
        report.counts["revisions_known"] += 1
        return
    parent = local_id.get(c["parent_uid"]) if c["parent_uid"] else None
    if parent is None and c["parent_uid"]:
        found = ops.row(conn, "SELECT id FROM conversions WHERE uid=?", (c["parent_uid"],))
        parent = int(found["id"]) if found else None
    siblings = ops.rows(conn, "SELECT id, uid, content_hash, author FROM conversions WHERE "
                        "submission_id=? AND parent_id IS ?", (sub, parent))
    digest = ops.text_hash(c["puml"])
    same = [s for s in siblings if s["content_hash"] == digest]
    if same:  # the same edit made twice (e.g. both graders imported the course)
        local_id[c["uid"]] = int(same[0]["id"])
        report.counts["revisions_same"] += 1
        return
    new_id, _ = ops.add_revision(conn, sub, c["puml"], c["author"], c["author_kind"], parent,
                                 uid=c["uid"], created_at=c["created_at"])
    local_id[c["uid"]] = new_id
    report.counts["revisions_added"] += 1
    if siblings and parent is not None:
        report.conflicts.append({
            "kind": "revision", "source": source, "task_id": c["task_id"],
            "source_id": c["source_id"], "parent_revision": parent,
            "kept": [s["id"] for s in siblings] + [new_id],
            "authors": [s["author"] for s in siblings] + [c["author"]],
            "message": "conflicting edits of the same PlantUML revision; all kept"})


def _merge_rating(conn: sqlite3.Connection, source: str, r: dict[str, Any], sub: int,
                  report: Report) -> None:
    # Packs from before group grading carry no group mark: an individual rating.
    values = {k: r.get(k) if k in ops.RATING_GROUP_COLUMNS else r[k]
              for k in ops.RATING_COLUMNS if k != "submission_id"}
    values.update(submission_id=sub, scores=json.dumps(r["scores"], sort_keys=True))
    old = ops.get_rating(conn, sub, r["grader"], r["rubric_id"])
    if old is None:
        if ops.row(conn, "SELECT id FROM ratings WHERE uid=?", (values["uid"],)):
            values["uid"] = ops.text_hash(f"{values['uid']}/{source}")[:32]
        ops.put_rating(conn, values)
        report.counts["ratings_added"] += 1
        report.added_by["ratings"][r["grader"]] += 1
    elif (old["scores"], old["total"], old["comment"]) == (values["scores"], values["total"],
                                                          values["comment"]):
        report.counts["ratings_same"] += 1
    else:
        report.counts["ratings_conflicting"] += 1
        report.conflicts.append({
            "kind": "rating", "source": source, "task_id": r["task_id"],
            "source_id": r["source_id"], "grader": r["grader"], "local_total": old["total"],
            "pack_total": r["total"], "message": "same grader, different rating; kept local"})


def _merge_review(conn: sqlite3.Connection, source: str, v: dict[str, Any], sub: int,
                  local_id: dict[str, int], report: Report) -> None:
    old = ops.get_review(conn, sub, v["reviewer"])
    values = {"submission_id": sub, "conversion_id": local_id.get(v["conversion_uid"] or ""),
              "reviewer": v["reviewer"], "verdict": v["verdict"],
              "tags": json.dumps(v["tags"]), "comment": v["comment"],
              "created_at": v["created_at"]}
    if old is None:
        ops.put_review(conn, values)
        report.counts["reviews_added"] += 1
        report.added_by["reviews"][v["reviewer"]] += 1
    elif (old["verdict"], old["tags"]) == (values["verdict"], values["tags"]):
        report.counts["reviews_same"] += 1
    else:
        report.conflicts.append({
            "kind": "review", "source": source, "task_id": v["task_id"],
            "source_id": v["source_id"], "reviewer": v["reviewer"],
            "local": old["verdict"], "pack": v["verdict"],
            "message": "same reviewer, different verdict; kept local"})
