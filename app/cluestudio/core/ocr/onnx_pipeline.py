"""OCR without OpenCV: the PP-OCR models in the ``rapidocr`` wheel run by ONNX Runtime, with
rapidocr's own pre- and post-processing (PaddleOCR's DB detector and CTC recogniser) ported
to numpy, scipy.ndimage and pyclipper.

Why: rapidocr uses OpenCV (~150 MB of a ~725 MB installer, issue 28) for ~20 array functions.
The port follows rapidocr 3.10 step by step (its module named in the docstrings) with our
engine's settings, and reads what it reads (tests/test_ocr_nocv.py). Resizes and the crop
sample as OpenCV does (``resample``): the models were tuned on that. On top, what issue 29
changed (``tuning``): sessions whose threads sleep, detection on a copy shrunk to the
letters' size, each found line recognised from the image itself, Latin script only.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.ocr.resample import ROWS_AT_ONCE, crop_quad, resize_area, resize_linear
from cluestudio.core.ocr.result import Box, TextLine
from cluestudio.core.ocr.tuning import (
    DETECT_MIN_SIDE,
    LANGUAGE_LETTERS,
    detection_scale,
    non_latin,
    quiet_session,
    released_run,
)

# rapidocr's config.yaml defaults (Global, Det, Rec sections) that our engine does not change
MIN_SIDE = 30                            # Global.min_side_len (max_side_len: our engine's)
PAD_MIN_HEIGHT, PAD_WH_RATIO = 30, 8     # Global.min_height / width_height_ratio
TEXT_SCORE = 0.5                         # Global.text_score: lines read less surely are dropped
DET_LIMIT_SIDE = DETECT_MIN_SIDE         # Det.limit_side_len (736) with limit_type "min"
DET_THRESH, BOX_THRESH, UNCLIP_RATIO = 0.3, 0.5, 1.6
MAX_CANDIDATES, MIN_BOX_SIDE = 1000, 3
REC_HEIGHT, REC_WIDTH, REC_BATCH = 48, 320, 6  # Rec.rec_img_shape, rec_batch_num
_LINE_STEP = 10                          # sorted_boxes: boxes this much lower start a new line


def model_files(folder: Path) -> tuple[Path, Path]:
    """The detection and recognition models the rapidocr wheel ships in ``folder/models``."""
    models = folder / "models"
    det, rec = sorted(models.glob("*_det_*.onnx")), sorted(models.glob("*_rec_*.onnx"))
    if not det or not rec:
        raise FileNotFoundError(f"no PP-OCR det/rec models in {models}")
    return det[-1], rec[-1]


# --- detection (rapidocr ch_ppocr_det/utils.py: DetPreProcess, DBPostProcess) -----------

def _convex_hull(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain; ``points`` as (N, 2) numbers."""
    pts = sorted(set(map(tuple, points.tolist())))
    if len(pts) < 3:
        return np.array(pts, np.float64)

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        chain: list[tuple[float, float]] = []
        for p in seq:
            while len(chain) >= 2:
                (ox, oy), (ax, ay) = chain[-2], chain[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0:
                    break  # a left turn: keep
                chain.pop()
            chain.append(p)
        return chain

    return np.array(half(pts)[:-1] + half(pts[::-1])[:-1], np.float64)


def min_area_rect(points: np.ndarray) -> tuple[np.ndarray, float]:
    """The corners of the smallest rotated rectangle around ``points`` (cv2.minAreaRect and
    boxPoints: one side lies on a convex hull edge) and its shorter side."""
    hull = _convex_hull(points)
    if len(hull) < 3:  # a point or a line: no width (OpenCV's rectangle is flat too)
        ends = np.array([hull[0], hull[-1], hull[-1], hull[0]], np.float32)
        return ends, 0.0
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    along = edges[keep] / lengths[keep, None]
    across = np.stack([-along[:, 1], along[:, 0]], axis=1)
    pa, pc = hull @ along.T, hull @ across.T               # (points, edges)
    spans_a = pa.max(axis=0) - pa.min(axis=0)
    spans_c = pc.max(axis=0) - pc.min(axis=0)
    best = int(np.argmin(spans_a * spans_c))
    a_lo, a_hi = pa[:, best].min(), pa[:, best].max()
    c_lo, c_hi = pc[:, best].min(), pc[:, best].max()
    u, n = along[best], across[best]
    corners = np.array([a * u + c * n for a, c in ((a_lo, c_lo), (a_hi, c_lo),
                                                   (a_hi, c_hi), (a_lo, c_hi))])
    return corners.astype(np.float32), float(min(spans_a[best], spans_c[best]))


def _mini_box(points: np.ndarray) -> tuple[np.ndarray, float]:
    """get_mini_boxes: the rectangle's corners as top-left, top-right, bottom-right, bottom-left."""
    corners, short_side = min_area_rect(points)
    pts = sorted(list(corners), key=lambda p: p[0])
    first, fourth = (0, 1) if pts[1][1] > pts[0][1] else (1, 0)
    second, third = (2, 3) if pts[3][1] > pts[2][1] else (3, 2)
    return np.array([pts[first], pts[second], pts[third], pts[fourth]]), short_side


def _box_score(prob: np.ndarray, box: np.ndarray) -> float:
    """box_score_fast: the mean probability inside the box (its corners truncated to pixels)."""
    from PIL import Image, ImageDraw

    h, w = prob.shape
    xmin = int(np.clip(np.floor(box[:, 0].min()), 0, w - 1))
    xmax = int(np.clip(np.ceil(box[:, 0].max()), 0, w - 1))
    ymin = int(np.clip(np.floor(box[:, 1].min()), 0, h - 1))
    ymax = int(np.clip(np.ceil(box[:, 1].max()), 0, h - 1))
    mask = Image.new("L", (xmax - xmin + 1, ymax - ymin + 1), 0)
    corners = (box - [xmin, ymin]).astype(np.int32)
    ImageDraw.Draw(mask).polygon([tuple(p) for p in corners.tolist()], fill=1, outline=1)
    inside = np.asarray(mask, bool)
    window = prob[ymin:ymax + 1, xmin:xmax + 1]
    return float(window[inside].mean()) if inside.any() else 0.0


def _unclip(box: np.ndarray) -> np.ndarray:
    import pyclipper

    x, y = box[:, 0].astype(np.float64), box[:, 1].astype(np.float64)
    area = abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2
    length = float(np.hypot(*(np.roll(box, -1, axis=0) - box).astype(np.float64).T).sum())
    offset = pyclipper.PyclipperOffset()
    offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    grown = offset.Execute(area * UNCLIP_RATIO / length) if length else []
    return np.array([p for path in grown for p in path], np.float64).reshape(-1, 2)


def _regions(mask: np.ndarray) -> list[np.ndarray]:
    """The point sets cv2.findContours(RETR_LIST) traces: each 8-connected region of the mask,
    and the ring of mask pixels around each hole (a 4-connected gap not open to the border).
    The convex hull, all that is used, is that of each row's two ends."""
    from scipy import ndimage

    found = []
    labels, _ = ndimage.label(mask, structure=np.ones((3, 3), bool))
    for index, window in enumerate(ndimage.find_objects(labels), start=1):
        if window is not None:
            found.append(_row_ends(labels[window] == index, window))
    holes, _ = ndimage.label(~mask)
    border = set(np.unique(np.concatenate([holes[0], holes[-1], holes[:, 0], holes[:, -1]])))
    for index, window in enumerate(ndimage.find_objects(holes), start=1):
        if window is None or index in border:
            continue
        grown = tuple(slice(max(s.start - 1, 0), s.stop + 1) for s in window)
        ring = ndimage.binary_dilation(holes[grown] == index) & mask[grown]
        found.append(_row_ends(ring, grown))
    return found


def _row_ends(region: np.ndarray, window: tuple[slice, ...]) -> np.ndarray:
    rows = np.flatnonzero(region.any(axis=1))
    first = region[rows].argmax(axis=1)
    last = region.shape[1] - 1 - region[rows, ::-1].argmax(axis=1)
    ys = np.concatenate([rows, rows]) + window[0].start
    xs = np.concatenate([first, last]) + window[1].start
    return np.stack([xs, ys], axis=1).astype(np.float64)


def detect(prob: np.ndarray, height: int, width: int) -> list[np.ndarray]:
    """DBPostProcess and filter_det_res: text quads (float32, clockwise from top-left) in an
    image of ``height``×``width`` from the probability map ``prob``, sorted in reading order."""
    mask = prob > DET_THRESH
    grown = mask.copy()  # cv2.dilate with a 2×2 kernel anchored at its centre (1, 1)
    grown[1:] |= mask[:-1]
    grown[:, 1:] |= mask[:, :-1]
    grown[1:, 1:] |= mask[:-1, :-1]
    map_h, map_w = prob.shape
    quads = []
    for points in _regions(grown)[:MAX_CANDIDATES]:
        box, short_side = _mini_box(points)
        if short_side < MIN_BOX_SIDE or _box_score(prob, box) < BOX_THRESH:
            continue
        grown_points = _unclip(box)
        if len(grown_points) == 0:
            continue
        box, short_side = _mini_box(grown_points)
        if short_side < MIN_BOX_SIDE + 2:
            continue
        box[:, 0] = np.clip(np.round(box[:, 0] / map_w * width), 0, width)
        box[:, 1] = np.clip(np.round(box[:, 1] / map_h * height), 0, height)
        quad = _clockwise(box.astype(np.int32))
        quad[:, 0] = np.clip(quad[:, 0], 0, width - 1).astype(np.int32)
        quad[:, 1] = np.clip(quad[:, 1], 0, height - 1).astype(np.int32)
        if min(int(np.linalg.norm(quad[0] - quad[1])), int(np.linalg.norm(quad[0] - quad[3]))) > 3:
            quads.append(quad)
    return _reading_order(quads)


def _clockwise(pts: np.ndarray) -> np.ndarray:
    by_x = pts[np.argsort(pts[:, 0]), :]
    left, right = by_x[:2, :], by_x[2:, :]
    tl, bl = left[np.argsort(left[:, 1]), :]
    tr, br = right[np.argsort(right[:, 1]), :]
    return np.array([tl, tr, br, bl], dtype=np.float32)


def _reading_order(quads: list[np.ndarray]) -> list[np.ndarray]:
    if not quads:
        return []
    boxes = np.array(quads)
    by_y = np.argsort(boxes[:, 0, 1], kind="stable")
    boxes = boxes[by_y]
    line = np.concatenate([[0], np.cumsum(np.diff(boxes[:, 0, 1]) >= _LINE_STEP)])
    return list(boxes[np.lexsort((boxes[:, 0, 0], line))])


# each 8-bit value as the models take it, (v / 255 - 0.5) / 0.5 in float32: looked up, the
# same number as computed pixel by pixel
_NORMALISED = (np.arange(256, dtype=np.float32) / 255 - 0.5) / 0.5


def _det_input(image: np.ndarray) -> np.ndarray:
    """DetPreProcess's tensor of ``image``: channels first, each value normalised."""
    h, w = image.shape[:2]
    tensor = np.empty((1, 3, h, w), np.float32)
    for start in range(0, h, ROWS_AT_ONCE):  # small temporaries (see ROWS_AT_ONCE)
        rows = image[start:start + ROWS_AT_ONCE].transpose(2, 0, 1)
        tensor[0, :, start:start + ROWS_AT_ONCE] = _NORMALISED[rows]
    return tensor


# --- recognition (rapidocr ch_ppocr_rec: resize_norm_img, CTCLabelDecode) ----------------

def _rec_input(crop: np.ndarray, max_ratio: float) -> np.ndarray:
    width = int(REC_HEIGHT * max_ratio)
    h, w = crop.shape[:2]
    resized_w = min(width, math.ceil(REC_HEIGHT * w / float(h)))
    resized = resize_linear(crop, resized_w, REC_HEIGHT)
    padded = np.zeros((3, REC_HEIGHT, width), np.float32)
    padded[:, :, :resized_w] = _NORMALISED[resized.transpose(2, 0, 1)]
    return padded


def ctc_decode(probs: np.ndarray, characters: list[str], banned: np.ndarray | None = None
               ) -> list[tuple[str, float]]:
    """Greedy CTC: the best class per step, repeats merged, blanks (0) dropped; the score is
    the mean probability of the kept steps (rounded as rapidocr does). ``banned`` classes
    are never chosen (their probability taken as 0)."""
    if banned is not None and banned.any():  # the choice among the allowed classes only
        allowed = np.flatnonzero(~banned)
        kept_probs = np.take(probs, allowed, axis=2)
        choices = kept_probs.argmax(axis=2)  # the maximum is the value chosen: one pass
        bests = allowed[choices]
        maxima = np.take_along_axis(kept_probs, choices[..., None], axis=2)[..., 0]
    else:
        bests, maxima = probs.argmax(axis=2), probs.max(axis=2)
    results = []
    for best, prob in zip(bests, maxima, strict=True):
        keep = np.ones(len(best), bool)
        keep[1:] = best[1:] != best[:-1]
        keep &= best != 0
        confidences = [round(c, 5) for c in prob[keep].tolist()] or [0]
        text = "".join(characters[i] for i in best[keep])
        results.append((text, float(np.mean(confidences).round(5))))
    return results


def _scaled(image: np.ndarray, scale: float) -> np.ndarray | None:
    """The image scaled, each side rounded to a multiple of 32 (as the detector needs)."""
    new_h, new_w = (int(round(int(side * scale) / 32) * 32) for side in image.shape[:2])
    return resize_linear(image, new_w, new_h) if new_h > 0 and new_w > 0 else None


class OnnxOcrEngine:
    """The default :class:`~cluestudio.core.ocr.engine.OcrEngine`: rapidocr's det → crop → rec
    with its models and our settings (no angle classifier, our size limit), no OpenCV;
    detection at the letters' size, recognition at full resolution, Latin script only.
    ``plain``: rapidocr's own flow instead (detection and recognition on the image shrunk to
    ``max_side``, every script), to compare the port with rapidocr as it comes."""

    def __init__(self, engine_id: str, max_side: int, rapidocr_folder: Path, *,
                 plain: bool = False) -> None:
        import pyclipper  # noqa: F401  (missing: fail here, where the caller says what to install)
        from scipy import ndimage  # noqa: F401

        det, rec = model_files(rapidocr_folder)
        self._id, self.max_side, self.plain = engine_id, max_side, plain
        self._det, self._rec = quiet_session(det), quiet_session(rec)
        self._run_options = released_run()
        meta = self._rec.get_modelmeta().custom_metadata_map
        # the dictionary travels in the model; index 0 is CTC's blank, the last a space
        self.characters = ["blank", *meta["character"].splitlines(), " "]
        self.banned = np.zeros(len(self.characters), bool) if plain else non_latin(
            self.characters)
        self._lock = threading.Lock()

    @property
    def engine_id(self) -> str:
        return self._id

    @property
    def alphabet(self) -> frozenset[str]:
        """The characters the recogniser can write."""
        return frozenset(c for c, banned in zip(self.characters, self.banned, strict=True)
                         if not banned and len(c) == 1)

    def languages(self) -> list[str]:
        """The ``[ocr] language`` setting's languages whose letters the recogniser writes."""
        alphabet = self.alphabet
        return [code for code, letters in LANGUAGE_LETTERS.items() if set(letters) <= alphabet]

    def read(self, pixels: np.ndarray) -> list[TextLine]:
        scale = 1.0 if self.plain else detection_scale(pixels, self.max_side)
        with self._lock:  # one session pair; the runtime already uses every core
            if self.plain:  # the models were trained on OpenCV's channel order (BGR)
                found = self.read_bgr(np.ascontiguousarray(pixels[:, :, ::-1]))
            else:
                found = self.read_at_scale(pixels, scale)
        lines = []
        for quad, text, score in found:
            points: Any = tuple((round(float(x), 1), round(float(y), 1)) for x, y in quad)
            lines.append(TextLine(text, Box(points), round(float(score), 4)))
        return lines

    def read_at_scale(self, rgb: np.ndarray, scale: float) -> list[tuple[np.ndarray, str, float]]:
        """Lines found on a copy shrunk by ``scale`` (area-averaged, as OpenCV's INTER_AREA),
        each read from ``rgb`` itself, in rapidocr's batches. The shrink and the crops
        sample each channel alone, so they are taken from ``rgb`` as it is and only their
        results turned to the models' BGR: no BGR copy of a full-resolution image."""
        small = rgb
        if scale < 0.95:
            h, w = rgb.shape[:2]
            small = resize_area(rgb, max(1, round(w * scale)), max(1, round(h * scale)))
        else:
            scale = 1.0
        found = self.read_bgr(np.ascontiguousarray(small[:, :, ::-1]), recognise=False)
        quads = [quad / np.float32(scale) for quad, _, _ in found]
        crops = [np.ascontiguousarray(crop_quad(rgb, quad.copy())[:, :, ::-1])
                 for quad in quads]
        kept = [i for i, crop in enumerate(crops) if crop.size]
        read = self.recognise([crops[i] for i in kept])
        return [(quads[i], text, score) for i, (text, score) in zip(kept, read, strict=True)
                if text.strip() and score >= TEXT_SCORE]

    def read_bgr(self, bgr: np.ndarray, recognise: bool = True
                 ) -> list[tuple[np.ndarray, str, float]]:
        """(quad in image pixels, text, score) in reading order (rapidocr main.RapidOCR);
        without ``recognise``, every box found, with no text."""
        ori_h, ori_w = bgr.shape[:2]
        image, ratio_h, ratio_w = bgr, 1.0, 1.0
        for shrink, limit in ((True, self.max_side), (False, MIN_SIDE)):
            # resize_image_within_bounds (where both apply, the second ratio replaces the first)
            h, w = image.shape[:2]
            side = max(h, w) if shrink else min(h, w)
            if (side > limit) if shrink else (side < limit):
                scaled = _scaled(image, limit / side)
                if scaled is None:
                    return []
                image, ratio_h, ratio_w = scaled, h / scaled.shape[0], w / scaled.shape[1]
        h, w = image.shape[:2]
        top = 0  # apply_vertical_padding: very flat or low images get black bands
        if h <= PAD_MIN_HEIGHT or w / h > PAD_WH_RATIO:
            top = int(abs(max(int(w / PAD_WH_RATIO), PAD_MIN_HEIGHT) * 2 - h) / 2)
            image = np.pad(image, ((top, top), (0, 0), (0, 0)))
        h, w = image.shape[:2]  # DetPreProcess: the shorter side at least DET_LIMIT_SIDE
        det_image = _scaled(image, max(DET_LIMIT_SIDE / min(h, w), 1.0))
        if det_image is None:
            return []
        quads = detect(self._probability(det_image), h, w)
        read = (self.recognise([crop_quad(image, q.copy()) for q in quads]) if recognise
                else [("", 1.0)] * len(quads))
        lines = []
        for quad, (text, score) in zip(quads, read, strict=True):
            if recognise and (not text.strip() or score < TEXT_SCORE):
                continue
            quad = (quad - [0, top]).astype(np.float32) * np.array([ratio_w, ratio_h], np.float32)
            quad = np.minimum(np.maximum(quad, 0), np.array([ori_w, ori_h], np.float32))
            lines.append((quad, text, score))
        return lines

    def _probability(self, det_image: np.ndarray) -> np.ndarray:
        """The detector's text probability of each pixel of ``det_image`` (BGR, sides
        multiples of 32)."""
        return self._det.run(None, {self._det.get_inputs()[0].name: _det_input(det_image)},
                             self._run_options)[0][0, 0]

    def recognise(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        ratios = [c.shape[1] / float(c.shape[0]) for c in crops]
        order = np.argsort(np.array(ratios))
        results: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for start in range(0, len(crops), REC_BATCH):
            batch = order[start:start + REC_BATCH]
            max_ratio = max([REC_WIDTH / REC_HEIGHT] + [ratios[i] for i in batch])
            tensor = np.stack([_rec_input(crops[i], max_ratio) for i in batch])
            # the arena is handed back after the last batch only: the batches reuse it
            last = start + REC_BATCH >= len(crops)
            probs = self._rec.run(None, {self._rec.get_inputs()[0].name: tensor},
                                  self._run_options if last else None)[0]
            decoded = ctc_decode(probs, self.characters, self.banned)
            for index, result in zip(batch, decoded, strict=True):
                results[index] = result
        return results
