"""A BERT encoder's weights (``model.safetensors`` + ``config.json``) written as an ONNX model,
without torch and without the ``onnx`` package (docs/adr/0015-onnx-default-encoder.md).

The graph is the one ``transformers.BertModel`` runs in eval mode — embeddings (word +
absolute position + token type 0) and LayerNorm, then per layer self-attention with the
additive padding mask, output projection, residual LayerNorm, exact (erf) GELU feed-forward,
residual LayerNorm — and returns ``last_hidden_state``. Pooling stays in numpy, as on the
torch path. ONNX files are protocol buffers; the handful of messages a graph of plain
operators needs are written by :class:`_Proto` below (field numbers from onnx.proto).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from cluestudio.core.embed.base import EmbedderError

OPSET = 17  # LayerNormalization is a standard operator from 17 on
IR_VERSION = 8
_FLOAT, _INT64 = 1, 7  # TensorProto.DataType
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7  # AttributeProto.AttributeType


class _Proto:
    """Protocol-buffer encoding of the fields ONNX needs: varints, floats, bytes, messages."""

    @staticmethod
    def varint(value: int) -> bytes:
        value &= (1 << 64) - 1  # negative int64 as two's complement, as protobuf does
        out = bytearray()
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                return bytes(out)

    @classmethod
    def num(cls, field: int, value: int) -> bytes:
        return cls.varint(field << 3) + cls.varint(value)

    @classmethod
    def f32(cls, field: int, value: float) -> bytes:
        return cls.varint(field << 3 | 5) + struct.pack("<f", value)

    @classmethod
    def raw(cls, field: int, data: bytes) -> bytes:
        return cls.varint(field << 3 | 2) + cls.varint(len(data)) + data

    @classmethod
    def text(cls, field: int, value: str) -> bytes:
        return cls.raw(field, value.encode("utf-8"))


def _tensor(name: str, array: np.ndarray) -> bytes:
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian)."""
    kind = {np.dtype(np.float32): _FLOAT, np.dtype(np.int64): _INT64}[array.dtype]
    out = b"".join(_Proto.num(1, d) for d in array.shape)
    return (out + _Proto.num(2, kind) + _Proto.text(8, name)
            + _Proto.raw(9, np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"))
                           .tobytes()))


def _attribute(name: str, value: float | int | list[int]) -> bytes:
    """AttributeProto: name (1), f (2), i (3), ints (8), type (20)."""
    if isinstance(value, list):
        body = b"".join(_Proto.num(8, v) for v in value) + _Proto.num(20, _ATTR_INTS)
    elif isinstance(value, float):
        body = _Proto.f32(2, value) + _Proto.num(20, _ATTR_FLOAT)
    else:
        body = _Proto.num(3, value) + _Proto.num(20, _ATTR_INT)
    return _Proto.text(1, name) + body


def _value_info(name: str, elem_type: int, dims: Iterable[str | int]) -> bytes:
    """ValueInfoProto{name, TypeProto{tensor_type{elem_type, TensorShapeProto{dim...}}}}."""
    shape = b"".join(_Proto.raw(1, _Proto.text(2, d) if isinstance(d, str) else _Proto.num(1, d))
                     for d in dims)
    tensor_type = _Proto.num(1, elem_type) + _Proto.raw(2, shape)
    return _Proto.text(1, name) + _Proto.raw(2, _Proto.raw(1, tensor_type))


class _Graph:
    """Nodes and initializers, named in order of creation."""

    def __init__(self) -> None:
        self.nodes: list[bytes] = []
        self.initializers: list[bytes] = []
        self._constants: set[str] = set()
        self._count = 0

    def const(self, name: str, array: np.ndarray) -> str:
        """An initializer; one by a name already used is that one (the same constant)."""
        if name not in self._constants:
            self._constants.add(name)
            self.initializers.append(_tensor(name, array))
        return name

    def op(self, op_type: str, *inputs: str, named: str = "",
           **attributes: float | int | list[int]) -> str:
        """NodeProto: input (1), output (2), name (3), op_type (4), attribute (5)."""
        self._count += 1
        output = named or f"{op_type.lower()}_{self._count}"
        node = b"".join(_Proto.text(1, i) for i in inputs) + _Proto.text(2, output)
        node += _Proto.text(3, output) + _Proto.text(4, op_type)
        node += b"".join(_Proto.raw(5, _attribute(k, v)) for k, v in attributes.items())
        self.nodes.append(node)
        return output

    def model(self, inputs: list[bytes], output: str, hidden: int) -> bytes:
        """ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8)."""
        graph = b"".join(_Proto.raw(1, n) for n in self.nodes) + _Proto.text(2, "bert")
        graph += b"".join(_Proto.raw(5, t) for t in self.initializers)
        graph += b"".join(_Proto.raw(11, i) for i in inputs)
        graph += _Proto.raw(12, _value_info(output, _FLOAT, ["batch", "sequence", hidden]))
        opset = _Proto.text(1, "") + _Proto.num(2, OPSET)
        return (_Proto.num(1, IR_VERSION) + _Proto.text(2, "cluestudio")
                + _Proto.raw(7, graph) + _Proto.raw(8, opset))


def bert_onnx(folder: Path) -> bytes:
    """The ONNX model (bytes) of the BERT encoder in ``folder``; inputs ``input_ids`` and
    ``attention_mask`` (int64, batch × sequence), output ``last_hidden_state``."""
    config = _config(folder)
    weights = _weights(folder)
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    head_size = hidden // heads
    g = _Graph()

    def w(name: str) -> np.ndarray:
        if name not in weights:
            raise EmbedderError(f"{folder / 'model.safetensors'}: no tensor {name!r} "
                                "(not a BERT encoder ClueStudio can run on ONNX Runtime)")
        return weights[name]

    def linear(x: str, prefix: str) -> str:
        # torch stores (out, in); x @ W.T + b
        kernel = g.const(f"{prefix}.weight.T", np.ascontiguousarray(w(f"{prefix}.weight").T))
        return g.op("Add", g.op("MatMul", x, kernel), g.const(f"{prefix}.bias",
                                                               w(f"{prefix}.bias")))

    def layer_norm(x: str, prefix: str) -> str:
        return g.op("LayerNormalization", x, g.const(f"{prefix}.weight", w(f"{prefix}.weight")),
                    g.const(f"{prefix}.bias", w(f"{prefix}.bias")), axis=-1, epsilon=eps)

    # Embeddings: word + position (0..L-1) + token type 0 (the only one a single text uses).
    words = g.op("Gather", g.const("word_embeddings", w("embeddings.word_embeddings.weight")),
                 "input_ids")
    length = g.op("Shape", "input_ids", start=1, end=2)
    zero = g.const("zero", np.zeros(1, dtype=np.int64))
    positions = g.op("Slice", g.const("position_embeddings",
                                      w("embeddings.position_embeddings.weight")),
                     zero, length, zero)
    token_type = g.const("token_type_0", w("embeddings.token_type_embeddings.weight")[0])
    x = g.op("Add", g.op("Add", words, positions), token_type)
    x = layer_norm(x, "embeddings.LayerNorm")

    # Additive mask as transformers builds it: 0 where attended, float32 min at padding.
    mask = g.op("Cast", "attention_mask", to=_FLOAT)
    mask = g.op("Mul", g.op("Sub", g.const("one", np.ones(1, np.float32)), mask),
                g.const("float_min", np.array([np.finfo(np.float32).min], np.float32)))
    mask = g.op("Unsqueeze", mask, g.const("axes_1_2", np.array([1, 2], np.int64)))
    split = g.const("split_heads", np.array([0, 0, heads, head_size], np.int64))
    merge = g.const("merge_heads", np.array([0, 0, hidden], np.int64))
    scale = g.const("scale", np.array([1 / math.sqrt(head_size)], np.float32))
    for number in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{number}"

        query, key_t, value = (
            g.op("Transpose", g.op("Reshape", linear(x, f"{p}.attention.self.{name}"), split),
                 perm=perm)
            for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]),
                               ("value", [0, 2, 1, 3])))
        scores = g.op("Add", g.op("Mul", g.op("MatMul", query, key_t), scale), mask)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), value)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
        x = layer_norm(g.op("Add", linear(context, f"{p}.attention.output.dense"), x),
                       f"{p}.attention.output.LayerNorm")
        inner = linear(x, f"{p}.intermediate.dense")
        inner = _gelu(g, inner)
        x = layer_norm(g.op("Add", linear(inner, f"{p}.output.dense"), x),
                       f"{p}.output.LayerNorm")
    output = g.op("Identity", x, named="last_hidden_state")
    inputs = [_value_info(name, _INT64, ["batch", "sequence"])
              for name in ("input_ids", "attention_mask")]
    return g.model(inputs, output, hidden)


def _gelu(g: _Graph, x: str) -> str:
    """Exact GELU, x · ½ · (1 + erf(x / √2)), as BERT's ``hidden_act = "gelu"``."""
    erf = g.op("Erf", g.op("Div", x, g.const("sqrt2", np.array([math.sqrt(2.0)], np.float32))))
    half = g.const("half", np.array([0.5], np.float32))
    return g.op("Mul", g.op("Mul", x, half),
                g.op("Add", erf, g.const("one_gelu", np.ones(1, np.float32))))


def _config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EmbedderError(f"cannot read {path}: {error}") from error
    supported = (config.get("model_type") == "bert"
                 and config.get("hidden_act", "gelu") == "gelu"
                 and config.get("position_embedding_type", "absolute") == "absolute")
    if not supported:
        raise EmbedderError(f"{path}: only BERT encoders with GELU and absolute positions "
                            "run on ONNX Runtime; others need torch (pip install "
                            "'cluestudio[ml]')")
    return dict(config)


def _weights(folder: Path) -> dict[str, np.ndarray]:
    path = folder / "model.safetensors"
    try:
        from safetensors.numpy import load_file

        weights = load_file(str(path))
    except (OSError, ValueError) as error:
        raise EmbedderError(f"cannot read {path}: {error}") from error
    # Some exports keep the BertModel prefix ("bert.embeddings...").
    return {name.removeprefix("bert."): array.astype(np.float32, copy=False)
            for name, array in weights.items()}
