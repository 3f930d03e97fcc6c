"""The workspace schema and its migrations, one function per ``PRAGMA user_version`` step.

A migration step gets a connection that is already inside a transaction; the caller bumps
``user_version`` in the same transaction, so a crash leaves the file at the old version or
the new one, never in between (SQLite DDL is transactional).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from cluestudio.core.errors import ClueStudioError


class WorkspaceTooNew(ClueStudioError):
    """The file was written by a newer ClueStudio; we refuse to touch it."""


class MigrationFailed(ClueStudioError):
    """A schema upgrade step failed; it was rolled back and the file is as it was."""


def _script(conn: sqlite3.Connection, sql: str) -> None:
    # Not executescript(): it COMMITs first, which would split a migration in two.
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


APPLICATION_ID = 0x434C5545  # "CLUE": marks the file as a ClueStudio workspace.


def _v1_initial(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    _script(
        conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- Images once per content hash (ADR 0004: blobs live in the db, one file to move).
        CREATE TABLE blobs (
            hash TEXT PRIMARY KEY, mime TEXT NOT NULL, width INTEGER, height INTEGER,
            size INTEGER NOT NULL, data BLOB NOT NULL
        );
        CREATE TABLE tasks (
            id TEXT PRIMARY KEY, title TEXT NOT NULL, requirement TEXT NOT NULL DEFAULT '',
            reference_puml TEXT NOT NULL DEFAULT '',
            reference_image TEXT REFERENCES blobs(hash),
            created_at TEXT NOT NULL
        );
        CREATE TABLE submissions (
            id INTEGER PRIMARY KEY,
            task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            source_id TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('student', 'llm', 'synthetic')),
            image_hash TEXT REFERENCES blobs(hash),
            meta TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (task_id, source_id)
        );
        CREATE TABLE conversions (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            parent_id INTEGER REFERENCES conversions(id),
            puml TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            author TEXT NOT NULL,
            author_kind TEXT NOT NULL CHECK (author_kind IN ('human', 'model', 'import')),
            parse_ok INTEGER,
            parse_error TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            conversion_id INTEGER REFERENCES conversions(id),
            reviewer TEXT NOT NULL,
            verdict TEXT NOT NULL CHECK (verdict IN ('accept', 'needs_fix', 'unusable')),
            tags TEXT NOT NULL DEFAULT '[]',
            comment TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, reviewer)
        );
        CREATE TABLE ratings (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            grader TEXT NOT NULL,
            rubric_id TEXT NOT NULL,
            scores TEXT NOT NULL DEFAULT '{}',
            total REAL,
            comment TEXT NOT NULL DEFAULT '',
            seconds REAL,
            synthetic INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, grader, rubric_id)
        );
        CREATE TABLE scores (
            id INTEGER PRIMARY KEY,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            metric TEXT NOT NULL, metric_version TEXT NOT NULL DEFAULT '',
            embedder TEXT NOT NULL DEFAULT '', weights_hash TEXT NOT NULL DEFAULT '',
            value REAL, explanation TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, content_hash, metric, metric_version, embedder, weights_hash)
        );
        CREATE TABLE probe_results (
            id INTEGER PRIMARY KEY,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            probe TEXT NOT NULL, model TEXT NOT NULL, input_hash TEXT NOT NULL,
            em REAL, rel_acc REAL, result TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, probe, model, input_hash)
        );
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY, kind TEXT NOT NULL, params TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL
                CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
            done INTEGER NOT NULL DEFAULT 0, total INTEGER, message TEXT NOT NULL DEFAULT '',
            error TEXT, started_at TEXT, finished_at TEXT
        );
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL,
            action TEXT NOT NULL, entity TEXT NOT NULL, entity_id TEXT NOT NULL,
            before TEXT, after TEXT
        );
        CREATE INDEX conversions_by_submission ON conversions(submission_id, id);
        CREATE INDEX ratings_by_submission ON ratings(submission_id);
        """
    )


def _v2_diagram_kind(conn: sqlite3.Connection) -> None:
    # Tasks gained a diagram kind when sequence/activity tasks were planned; old rows are
    # class-diagram tasks. Listing by task + origin is the GUI's main query.
    conn.execute("ALTER TABLE tasks ADD COLUMN diagram_kind TEXT NOT NULL DEFAULT 'class'")
    conn.execute("CREATE INDEX submissions_by_task ON submissions(task_id, origin, source_id)")
    conn.execute("CREATE INDEX scores_by_submission ON scores(submission_id, metric)")


def _v3_audit_results(conn: sqlite3.Connection) -> None:
    # The prior-bias audit (``cluestudio audit --workspace``): one row per answered
    # (instance, scale), keyed like the JSONL cache, so a re-run skips what is done and an
    # interrupted run resumes. ``record`` is the whole answer record (JSON); the key columns
    # and em/correct are copies for queries.
    _script(
        conn,
        """
        CREATE TABLE audit_results (
            id INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            seed INTEGER NOT NULL,
            instance_id TEXT NOT NULL,
            condition TEXT NOT NULL,
            relation TEXT NOT NULL,
            scale REAL NOT NULL,
            em INTEGER,
            correct INTEGER,
            record TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (model, prompt_version, seed, instance_id, condition, relation, scale)
        );
        CREATE INDEX audit_results_by_cell ON audit_results(model, prompt_version, condition,
                                                             relation, scale)
        """,
    )


def _v4_score_configuration(conn: sqlite3.Connection) -> None:
    # A score's key gains the similarity profile and normalization (before, paper and
    # oodeval-code scores with the same embedder overwrote each other). Rows are copied in
    # the order they were computed, so row ids follow computation order from here on, which
    # is what "the current score" reads (core/workspace/scores.py).
    _script(
        conn,
        """
        CREATE TABLE scores_v4 (
            id INTEGER PRIMARY KEY,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            metric TEXT NOT NULL, metric_version TEXT NOT NULL DEFAULT '',
            embedder TEXT NOT NULL DEFAULT '', profile TEXT NOT NULL DEFAULT '',
            normalization TEXT NOT NULL DEFAULT '', weights_hash TEXT NOT NULL DEFAULT '',
            value REAL, explanation TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, content_hash, metric, metric_version, embedder, profile,
                    normalization, weights_hash)
        );
        INSERT INTO scores_v4 (submission_id, content_hash, metric, metric_version, embedder,
                               weights_hash, value, explanation, created_at)
            SELECT submission_id, content_hash, metric, metric_version, embedder,
                   weights_hash, value, explanation, created_at
            FROM scores ORDER BY created_at, id;
        DROP TABLE scores;
        ALTER TABLE scores_v4 RENAME TO scores;
        CREATE INDEX scores_by_submission ON scores(submission_id, metric)
        """,
    )


def _v5_check_results(conn: sqlite3.Connection) -> None:
    # The offline conversion check (``cluestudio check --workspace``, issue 18): one row per
    # checked (submission, revision, image A, check version, OCR engine), so a rerun skips
    # what is checked and a revision saved later is checked anew. ``result`` is the whole
    # report (JSON: missing names with boxes, invented names with lines); triage, flagged
    # and the counts are copies for sorting and filtering the submission list. Undoing a
    # revision deletes it, and its checks with it.
    _script(
        conn,
        """
        CREATE TABLE check_results (
            id INTEGER PRIMARY KEY,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            conversion_id INTEGER NOT NULL REFERENCES conversions(id) ON DELETE CASCADE,
            image_hash TEXT NOT NULL,
            check_version TEXT NOT NULL,
            engine TEXT NOT NULL,
            triage REAL NOT NULL,
            flagged INTEGER NOT NULL,
            text_recall REAL,
            name_precision REAL,
            missing INTEGER NOT NULL,
            invented INTEGER NOT NULL,
            result TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (submission_id, conversion_id, image_hash, check_version, engine)
        );
        CREATE INDEX check_results_by_submission ON check_results(submission_id, conversion_id)
        """,
    )


def _v6_group_ratings(conn: sqlite3.Connection) -> None:
    # Grade by group (issue 17): a rating copied from another submission of the same task
    # onto a group of near-identical ones keeps which group (``group_key``, stable across
    # workspaces: from the group's content) and which submission it came from
    # (``group_from``: that submission's source id, as packs name submissions). Both stay
    # NULL on an individual rating; saving a rating individually clears them.
    conn.execute("ALTER TABLE ratings ADD COLUMN group_key TEXT")
    conn.execute("ALTER TABLE ratings ADD COLUMN group_from TEXT")


def _v7_teaching_loop(conn: sqlite3.Connection) -> None:
    # Closing the teaching loop (issue 27). ``roster``: the course's students (a submission
    # belongs to one through its metadata, the roster's ``submissions`` list or its file
    # name: core/workspace/students.py). ``comment_bank``: reusable comments per rubric item
    # with a point adjustment; a use of one (``item_comments.bank_uid``) shows the bank's
    # current text and points, so an edit reaches every submission that uses it.
    # ``item_comments``: a grader's comments per rubric item of a rating (free text, a bank
    # comment, or an element-diff suggestion the grader accepted); the overall comment stays
    # ``ratings.comment``. ``assignments``: who grades what when a course is split among
    # graders. ``adjudications``: the lead grader's final rating where graders disagreed.
    _script(
        conn,
        """
        CREATE TABLE roster (
            student_id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT NOT NULL DEFAULT '',
            section TEXT NOT NULL DEFAULT '',
            username TEXT NOT NULL DEFAULT '',
            participant_id TEXT NOT NULL DEFAULT '',
            submissions TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        );
        CREATE TABLE comment_bank (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            rubric_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            text TEXT NOT NULL,
            points REAL NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE item_comments (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            grader TEXT NOT NULL,
            rubric_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            bank_uid TEXT REFERENCES comment_bank(uid),
            origin TEXT NOT NULL CHECK (origin IN ('grader', 'bank', 'suggestion')),
            created_at TEXT NOT NULL
        );
        CREATE INDEX item_comments_by_submission ON item_comments(submission_id, grader);
        CREATE TABLE assignments (
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            grader TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (submission_id, grader)
        );
        CREATE TABLE adjudications (
            submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
            rubric_id TEXT NOT NULL,
            lead TEXT NOT NULL,
            scores TEXT NOT NULL DEFAULT '{}',
            total REAL NOT NULL,
            comment TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            PRIMARY KEY (submission_id, rubric_id)
        )
        """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _v1_initial, _v2_diagram_kind, _v3_audit_results, _v4_score_configuration,
    _v5_check_results, _v6_group_ratings, _v7_teaching_loop)
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_version(version: int, source: str) -> None:
    if version > SCHEMA_VERSION:
        raise WorkspaceTooNew(
            f"{source}: workspace format {version} is newer than this ClueStudio supports "
            f"({SCHEMA_VERSION}); update ClueStudio to open it (nothing was changed)"
        )


def migrate(conn: sqlite3.Connection, *, target: int = SCHEMA_VERSION,
            source: str = "<workspace>") -> list[int]:
    """Bring ``conn`` (autocommit mode) up to ``target``; returns the versions applied."""
    applied = []
    current = user_version(conn)
    check_version(current, source)
    for version in range(current + 1, target + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[version - 1](conn)
            conn.execute(f"PRAGMA user_version = {version}")
        except Exception as error:
            conn.execute("ROLLBACK")
            raise MigrationFailed(
                f"{source}: could not upgrade the workspace from format {version - 1} to "
                f"{version} ({type(error).__name__}: {error}); the file was not changed"
            ) from error
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        applied.append(version)
    return applied
