// A zip archive made in the browser, for "download all": files are
// stored (results are compressed already), with UTF-8 names.

let table;
function crc32(b) {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = table[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** zip returns a Blob of a zip archive of entries [{name, data: Uint8Array}]; names are made unique. */
export function zip(entries) {
  const enc = new TextEncoder();
  const parts = [], central = [];
  const seen = new Set();
  let offset = 0;
  for (const { name, data } of entries) {
    let n = name, i = 1;
    while (seen.has(n)) n = name.replace(/(\.[^.]*)?$/, (ext) => "-" + ++i + (ext || ""));
    seen.add(n);
    const nb = enc.encode(n), crc = crc32(data);
    const head = (sig, extra) => {
      const h = new DataView(new ArrayBuffer(extra ? 46 : 30));
      let p = 0;
      const u32 = (v) => { h.setUint32(p, v, true); p += 4; }, u16 = (v) => { h.setUint16(p, v, true); p += 2; };
      u32(sig);
      if (extra) u16(20);
      u16(20); u16(0x800); u16(0); u16(0); u16(0x21); // version, UTF-8 names, stored, 1980-01-01
      u32(crc); u32(data.length); u32(data.length); u16(nb.length); u16(0);
      if (extra) { u16(0); u16(0); u16(0); u32(0); u32(offset); }
      return new Uint8Array(h.buffer);
    };
    const local = head(0x04034b50, false);
    parts.push(local, nb, data);
    central.push(head(0x02014b50, true), nb);
    offset += local.length + nb.length + data.length;
  }
  const size = central.reduce((a, b) => a + b.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, new Uint8Array(end.buffer)], { type: "application/zip" });
}
