import json, sys
from sentence_transformers import SentenceTransformer
from tokenizers import Tokenizer
d = sys.argv[1]
m = SentenceTransformer(d, device="cpu")
tok = Tokenizer.from_file(d + "/tokenizer.json")
tok.no_truncation(); tok.no_padding()
sents = [
 "How do I create a ROS 2 publisher?",
 "A topic is a named channel over which nodes exchange messages.",
 "What does an IMU measure?",
 "The inertial measurement unit reports acceleration and angular velocity.",
 "Café owners naïvely résumé their coöperation.",
 "def main():\n    rclpy.init()\n    node = rclpy.create_node('talker')",
 "What is the difference between == and === in JavaScript?",
 "Photosynthesis converts light energy into chemical energy stored in glucose.",
 "| Sensor | Rate |\n|---|---|\n| LiDAR | 10 Hz |",
 "日本語のテキストも扱えますか？ 中文也可以。",
 "antidisestablishmentarianism supercalifragilisticexpialidocious",
 "A recipe for banana bread, please!",
 " ".join(["The robot moves its arm to grasp the cup on the table."] * 30),
]
vecs = m.encode(sents, normalize_embeddings=True)
out = {"model": "sentence-transformers/all-MiniLM-L6-v2", "reference": "sentence-transformers " + __import__("sentence_transformers").__version__ + ", torch " + __import__("torch").__version__, "max_seq_length": m.max_seq_length, "cases": []}
for s, v in zip(sents, vecs):
    out["cases"].append({"text": s, "ids": tok.encode(s).ids, "vector": [round(float(x), 6) for x in v]})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("ok", len(sents))
