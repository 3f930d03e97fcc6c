"""The local transformers backend on a tiny random VLM built offline (no hub, no download).

A two-layer LLaVA (CLIP vision tower + Llama text model, hidden size 16) with a word-level
tokenizer and a CLIP image processor is saved to a temp dir and loaded back by path through
AutoProcessor + AutoModelForImageTextToText, exactly as a real model folder would be. Its
answers are noise; the point is that loading, batching, generation and parsing hold up.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from cluestudio.core.jobs import run_job  # noqa: E402
from cluestudio.core.model import Class, ClassDiagram, Relation, RelationType  # noqa: E402
from cluestudio.core.vlm.backend import ImageInput, VLMRequest  # noqa: E402
from cluestudio.core.vlm.conversion import convert_image  # noqa: E402
from cluestudio.core.vlm.local_backend import TransformersBackend  # noqa: E402
from cluestudio.core.vlm.probe import probe_submission  # noqa: E402

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: "
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}"
    "{% endif %}{% endfor %}{% endif %} {% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


def build_tiny_vlm(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["<pad>", "<s>", "</s>", "<unk>", "<image>", "True", "False", "Unknown", "[", "]",
             '"', ",", "Dog", "Animal", "@startuml", "@enduml", "class", "<|--", "\n"]
    vocab = {w: i for i, w in enumerate(words)}
    for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:?'-_":
        vocab.setdefault(ch, len(vocab))
    tokenizer_model = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer_model.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer_model, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
        pad_token="<pad>", extra_special_tokens={"image_token": "<image>"})
    image_processor = transformers.CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = transformers.LlavaProcessor(
        image_processor=image_processor, tokenizer=tokenizer, patch_size=8,
        vision_feature_select_strategy="default", num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE)
    config = transformers.LlavaConfig(
        vision_config=transformers.CLIPVisionConfig(
            hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
            image_size=32, patch_size=8, projection_dim=16),
        text_config=transformers.LlamaConfig(
            vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
            pad_token_id=0, bos_token_id=1, eos_token_id=2),
        image_token_index=vocab["<image>"], vision_feature_select_strategy="default",
        vision_feature_layer=-1)
    torch.manual_seed(0)
    transformers.LlavaForConditionalGeneration(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory):
    # One thread: on a shared 2-core machine, torch's thread pool only adds contention for
    # a model this small.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))
    torch.set_num_threads(threads)


def _png(color: str) -> ImageInput:
    out = io.BytesIO()
    Image.new("RGB", (48, 40), color).save(out, format="PNG")
    return ImageInput.from_bytes(out.getvalue())


def test_tiny_vlm_loads_by_path_and_generates_in_batches(tiny_vlm: Path) -> None:
    backend = TransformersBackend(str(tiny_vlm), device="cpu", max_tokens=6, batch_size=2)
    requests = [VLMRequest(f"Does class Dog inherit from class Animal? {i}",
                           images=(_png(color),), system="be exact")
                for i, color in enumerate(("white", "black", "red"))]
    replies = backend.complete_batch(requests)
    assert len(replies) == 3 and backend.device == "cpu"
    assert all(isinstance(r.text, str) for r in replies)
    assert all(r.usage.prompt_tokens > 0 and r.usage.completion_tokens <= 6 for r in replies)
    # Greedy decoding is deterministic: the same request gives the same answer.
    assert backend.complete(requests[0]).text == replies[0].text


def test_tiny_vlm_through_probe_and_conversion(tiny_vlm: Path) -> None:
    backend = TransformersBackend(str(tiny_vlm), device="cpu", max_tokens=4)
    diagram = ClassDiagram(classes=(Class("Animal"), Class("Dog")),
                           relations=(Relation(RelationType.GENERALIZATION, "Dog", "Animal"),))
    result = run_job(probe_submission(_png("white"), diagram, backend))
    assert len(result.answers) == 2
    assert all(a.parsed in {"True", "False", "Unknown"} for a in result.answers)
    converted = run_job(convert_image(_png("white"), backend, max_repairs=1,
                                      check=lambda text: None))
    assert len(converted.attempts) in (1, 2)  # noise answers fail cleanly, with a record
    assert converted.attempts[0].model == str(tiny_vlm)
