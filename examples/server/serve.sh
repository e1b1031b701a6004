#!/usr/bin/env bash
# Serve tinycode's default GGUF model over an OpenAI-compatible HTTP API, then repair a
# file through it. One server can then answer many tinycode processes (editors, hooks, CI).
#
#   examples/server/serve.sh [llama-cpp-python | llama-server | vllm] [FILE]
#
# Run from the repository root with tinycode installed (pip install -e ".[model,server]").
set -euo pipefail

server="${1:-llama-cpp-python}"
file="${2:-examples/python/broken.py}"
port="${TINYCODE_SERVER_PORT:-8080}"
base_url="http://127.0.0.1:${port}/v1"

# The same verified file tinycode loads in process (assembled or downloaded once, cached).
model="$(tinycode models pull)"

case "$server" in
  llama-cpp-python)  # pip install "llama-cpp-python[server]"
    python -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
      --n_ctx 4096 --verbose false &
    ;;
  llama-server)      # llama.cpp's own server binary
    llama-server --model "$model" --host 127.0.0.1 --port "$port" --ctx-size 4096 &
    ;;
  vllm)              # GGUF support in vLLM is experimental and wants the original tokenizer
    vllm serve "$model" --tokenizer Qwen/Qwen2.5-Coder-0.5B-Instruct \
      --host 127.0.0.1 --port "$port" --max-model-len 4096 &
    ;;
  *)
    echo "usage: $0 [llama-cpp-python|llama-server|vllm] [FILE]" >&2
    exit 2
    ;;
esac
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT

# Wait until the server answers (loading takes a second for the 0.5B model on a CPU).
for _ in $(seq 120); do
  if curl -sf "${base_url}/models" >/dev/null; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then echo "the server exited" >&2; exit 1; fi
  sleep 0.5
done

# The openai backend, chosen in the environment here ([tool.tinycode] backend and
# base-url in pyproject.toml work the same way).
TINYCODE_BACKEND=openai TINYCODE_BASE_URL="$base_url" tinycode fix --diff "$file"
