"""A student's feedback page: one self-contained HTML file (issue 27).

Rubric items with points and the grader's comments, the overall comment, the requirement,
the student's own diagram (image A) and, when the course shows the reference, the element
diff image — every image embedded as a ``data:`` URI and the style inline, so the page opens
from a zip, a USB stick or an LMS without any network access. No script, no external URL.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

_CSS = """
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
 color:#1d2430;background:#f5f6f8}
main{max-width:60rem;margin:0 auto;padding:1rem}
header{padding:1rem 0 .5rem;border-bottom:2px solid #d0d5dd;margin-bottom:1rem}
h1{font-size:1.5rem;margin:0} h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
h3{font-size:1.05rem;margin:1rem 0 .4rem}
section.task{background:#fff;border:1px solid #d0d5dd;border-radius:8px;padding:1rem;
 margin-bottom:1.5rem}
.grade{font-size:1.6rem;font-weight:700} .basis{color:#5b6472;font-size:.9rem}
table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.45rem .5rem;
 border-bottom:1px solid #e4e7ec;vertical-align:top}
td.points{white-space:nowrap;font-variant-numeric:tabular-nums;width:6rem}
ul.comments{margin:.2rem 0 0;padding-left:1.1rem} .adjust{color:#9a3412;font-size:.85rem}
.overall{background:#eef4ff;border-left:4px solid #3b6fd8;padding:.6rem .8rem;
 white-space:pre-wrap}
.requirement{background:#fafafa;border:1px solid #e4e7ec;padding:.6rem .8rem;
 border-radius:6px} figure{margin:.5rem 0} figcaption{color:#5b6472;font-size:.9rem}
img{max-width:100%;height:auto;border:1px solid #e4e7ec;background:#fff}
.note{color:#5b6472;font-style:italic}
@media (max-width:40rem){body{font-size:15px} main{padding:.5rem}
 td.points{width:4.5rem} section.task{padding:.7rem}}
"""


@dataclass(frozen=True)
class CommentLine:
    text: str
    points: float = 0.0  # a bank comment's point adjustment


@dataclass(frozen=True)
class ItemFeedback:
    label: str
    score: float | None
    max: float
    comments: tuple[CommentLine, ...] = ()


@dataclass(frozen=True)
class TaskFeedback:
    task_id: str
    title: str
    requirement: str
    grade: float | None
    basis: str
    points: float
    items: tuple[ItemFeedback, ...]
    overall: str = ""
    image: tuple[bytes, str] | None = None  # (data, mime) of the student's image A
    diff_png: bytes | None = None  # the coloured element diff, when the reference is shown
    missing: tuple[str, ...] = ()  # reference elements the diagram lacks (reference shown)
    note: str = ""  # why something is not shown


@dataclass(frozen=True)
class StudentFeedback:
    course: str
    student_name: str
    student_id: str
    tasks: tuple[TaskFeedback, ...]


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _inline(text: str) -> str:
    """Escaped text with Markdown's **bold** and *emphasis* as tags (nothing else)."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
    return re.sub(r"(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])", r"<em>\1</em>", escaped)


def _requirement(text: str, title: str = "") -> str:
    """The requirement's Markdown as paragraphs (escaped; headings in bold, the one that
    repeats the task's title left out)."""
    parts: list[str] = []
    para: list[str] = []

    def close() -> None:
        if para:
            parts.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()

    for line in text.splitlines():
        if not line.strip():
            close()
        elif line.startswith("#"):
            close()
            heading = line.lstrip("#").strip()
            if heading != title.strip():
                parts.append(f"<p><strong>{_inline(heading)}</strong></p>")
        else:
            para.append(line.strip())
    close()
    return "".join(parts)


def _points(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def _items(items: Sequence[ItemFeedback]) -> str:
    rows = []
    for item in items:
        comments = "".join(
            f"<li>{html.escape(c.text)}"
            + (f' <span class="adjust">({c.points:+g} points)</span>' if c.points else "")
            + "</li>" for c in item.comments)
        listed = f'<ul class="comments">{comments}</ul>' if comments else ""
        rows.append(f"<tr><td>{html.escape(item.label)}{listed}</td>"
                    f'<td class="points">{_points(item.score)} / {item.max:g}</td></tr>')
    return ("<table><thead><tr><th>Rubric item</th><th>Points</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _task(task: TaskFeedback) -> str:
    grade = ("not graded yet" if task.grade is None
             else f"{task.grade:.2f} / {task.points:g}")
    out = [f'<section class="task" id="{html.escape(task.task_id)}">',
           f"<h2>{html.escape(task.title)}</h2>",
           f'<p><span class="grade">{grade}</span> <span class="basis">'
           f"({html.escape(task.basis)})</span></p>", _items(task.items)]
    if task.overall:
        out.append(f'<h3>Overall comment</h3><div class="overall">{html.escape(task.overall)}'
                   "</div>")
    out.append(f'<h3>The requirement</h3><div class="requirement">'
               f"{_requirement(task.requirement, task.title)}</div>")
    if task.image is not None:
        out.append(f'<h3>Your diagram</h3><figure><img alt="Your submitted diagram" '
                   f'src="{data_uri(*task.image)}"></figure>')
    if task.diff_png is not None:
        out.append('<h3>Your diagram against the reference solution</h3><figure>'
                   f'<img alt="Element diff against the reference" '
                   f'src="{data_uri(task.diff_png, "image/png")}"><figcaption>Blue: as in '
                   "the reference; amber, dashed: partly (renamed, another type or "
                   "multiplicity); orange-red, bold: not in the reference. The legend lists "
                   "what is missing.</figcaption></figure>")
    if task.missing:
        listed = "".join(f"<li>{html.escape(m)}</li>" for m in task.missing)
        out.append(f"<h3>In the reference solution but not in yours</h3><ul>{listed}</ul>")
    if task.note:
        out.append(f'<p class="note">{html.escape(task.note)}</p>')
    out.append("</section>")
    return "".join(out)


def render_feedback(feedback: StudentFeedback) -> str:
    """The whole page as one HTML string."""
    title = f"Feedback: {feedback.student_name} – {feedback.course}"
    who = html.escape(feedback.student_name)
    if feedback.student_id:
        who += f" <span class='basis'>({html.escape(feedback.student_id)})</span>"
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "img-src data:; style-src 'unsafe-inline'\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><main>"
            f"<header><h1>{html.escape(feedback.course)}</h1><p>Feedback for {who}</p>"
            "</header>" + "".join(_task(t) for t in feedback.tasks) + "</main></body></html>")
