/**
 * Composable XDR codecs: one value describes both directions of a type, so the procedure
 * table can state each layout once (`struct({ dom: domain, flags: uint })`) and the
 * TypeScript types of arguments and replies are inferred from it.
 */
import { XdrError, XdrReader, XdrWriter } from './xdr.js';

/**
 * Encodes and decodes one XDR type. Methods (not function-typed properties) on purpose:
 * their parameters are bivariant, so a `Codec<string>` fits where a `Codec<unknown>` is
 * expected and tables of mixed codecs type-check without `any`.
 */
export interface Codec<T> {
  /** The XDR type, for error messages and debugging. */
  readonly xdr: string;
  encode(w: XdrWriter, value: T): void;
  decode(r: XdrReader): T;
}

/** The TypeScript type a codec reads and writes. */
export type Infer<C> = C extends Codec<infer T> ? T : never;

function primitive<T>(xdr: string, encode: (w: XdrWriter, v: T) => void, decode: (r: XdrReader) => T): Codec<T> {
  return { xdr, encode, decode };
}

/** No bytes at all: the args or reply of a procedure that has none. */
export const xvoid: Codec<undefined> = primitive<undefined>(
  'void',
  () => undefined,
  () => undefined,
);
export const int = primitive<number>(
  'int',
  (w, v) => w.int(v),
  (r) => r.int(),
);
export const uint = primitive<number>(
  'unsigned int',
  (w, v) => w.uint(v),
  (r) => r.uint(),
);
export const hyper = primitive<bigint>(
  'hyper',
  (w, v) => w.hyper(v),
  (r) => r.hyper(),
);
export const uhyper = primitive<bigint>(
  'unsigned hyper',
  (w, v) => w.uhyper(v),
  (r) => r.uhyper(),
);
export const bool = primitive<boolean>(
  'bool',
  (w, v) => w.bool(v),
  (r) => r.bool(),
);
export const double = primitive<number>(
  'double',
  (w, v) => w.double(v),
  (r) => r.double(),
);

// XDR has no 8- or 16-bit types: char, short and their unsigned forms travel as a full
// 4-byte int (libvirt's rpcgen maps them to xdr_char/xdr_short, which do exactly that).
// The range is checked so that a value the daemon would truncate is refused instead.
function narrow(xdr: string, min: number, max: number, signed: boolean): Codec<number> {
  return primitive<number>(
    xdr,
    (w, v) => {
      if (!Number.isInteger(v) || v < min || v > max) throw new XdrError(`${xdr} out of range: ${v}`);
      if (signed) w.int(v);
      else w.uint(v);
    },
    (r) => {
      const v = signed ? r.int() : r.uint();
      if (v < min || v > max) throw new XdrError(`${xdr} out of range: ${v}`);
      return v;
    },
  );
}
export const char = narrow('char', -128, 127, true);
export const uchar = narrow('unsigned char', 0, 255, false);
export const short = narrow('short', -32768, 32767, true);
export const ushort = narrow('unsigned short', 0, 65535, false);

/** `string<max>`. */
export function string(max?: number): Codec<string> {
  return primitive<string>(
    max === undefined ? 'string<>' : `string<${max}>`,
    (w, v) => w.string(v, max),
    (r) => r.string(max),
  );
}

/** `opaque<max>`. */
export function opaque(max?: number): Codec<Buffer> {
  return primitive<Buffer>(
    max === undefined ? 'opaque<>' : `opaque<${max}>`,
    (w, v) => w.opaque(v, max),
    (r) => r.opaque(max),
  );
}

/** `opaque[size]`. */
export function fixedOpaque(size: number): Codec<Buffer> {
  return primitive<Buffer>(
    `opaque[${size}]`,
    (w, v) => w.fixedOpaque(v, size),
    (r) => r.fixedOpaque(size),
  );
}

/** `*T`: a 0/1 word, then the value when present. Absent is `null`. */
export function optional<T>(inner: Codec<T>): Codec<T | null> {
  return {
    xdr: `*${inner.xdr}`,
    encode(w, v) {
      if (v === null || v === undefined) {
        w.uint(0);
      } else {
        w.uint(1);
        inner.encode(w, v);
      }
    },
    decode(r) {
      return r.present() ? inner.decode(r) : null;
    },
  };
}

function inElement<T>(index: number, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof XdrError) throw err.within(`[${index}]`);
    throw err;
  }
}

/** `T<max>`: a count, then the elements. The maximum is enforced both ways. */
export function array<T>(inner: Codec<T>, max: number): Codec<T[]> {
  return {
    xdr: `${inner.xdr}<${max}>`,
    encode(w, v) {
      if (v.length > max) throw new XdrError(`array of ${v.length} elements exceeds maximum ${max}`);
      w.uint(v.length);
      for (let i = 0; i < v.length; i++) inElement(i, () => inner.encode(w, v[i] as T));
    },
    decode(r) {
      const n = r.uint();
      if (n > max) throw new XdrError(`array length ${n} exceeds maximum ${max}`);
      // Every XDR item is at least 4 bytes (void elements do not exist in these layouts),
      // so a count the buffer cannot hold is refused before looping over it.
      if (n * 4 > r.remaining)
        throw new XdrError(`truncated: array of ${n} elements cannot fit in ${r.remaining} bytes`);
      const out: T[] = new Array<T>(n);
      for (let i = 0; i < n; i++) out[i] = inElement(i, () => inner.decode(r));
      return out;
    },
  };
}

/** `T[n]`: exactly `n` elements, no count word. */
export function fixedArray<T>(inner: Codec<T>, n: number): Codec<T[]> {
  return {
    xdr: `${inner.xdr}[${n}]`,
    encode(w, v) {
      if (v.length !== n) throw new XdrError(`fixed array must have ${n} elements, got ${v.length}`);
      for (let i = 0; i < n; i++) inElement(i, () => inner.encode(w, v[i] as T));
    },
    decode(r) {
      const out: T[] = new Array<T>(n);
      for (let i = 0; i < n; i++) out[i] = inElement(i, () => inner.decode(r));
      return out;
    },
  };
}

/** The shape of a struct's fields. */
export type Fields = Record<string, Codec<unknown>>;
/** The object type a struct of `F` reads and writes. */
export type StructOf<F extends Fields> = { [K in keyof F]: Infer<F[K]> };

/** An XDR struct: the fields in declaration order, no framing. */
export function struct<F extends Fields>(name: string, fields: F): Codec<StructOf<F>> {
  const entries = Object.entries(fields);
  return {
    xdr: name,
    encode(w, v) {
      if (v === null || typeof v !== 'object') throw new XdrError(`${name}: expected an object`);
      for (const [key, codec] of entries) {
        try {
          codec.encode(w, (v as Record<string, unknown>)[key]);
        } catch (err) {
          if (err instanceof XdrError) throw err.within(key);
          throw err;
        }
      }
    },
    decode(r) {
      const out: Record<string, unknown> = {};
      for (const [key, codec] of entries) {
        try {
          out[key] = codec.decode(r);
        } catch (err) {
          if (err instanceof XdrError) throw err.within(key);
          throw err;
        }
      }
      return out as StructOf<F>;
    },
  };
}

/** Arms of a discriminated union, keyed by discriminant value. */
export type Arms = Record<number, Codec<unknown>>;
/** A decoded union value: the discriminant and the arm's value. */
export type UnionOf<A extends Arms> = { [K in keyof A & number]: { type: K; value: Infer<A[K]> } }[keyof A & number];

/** `union switch (int type)`: the discriminant, then the chosen arm. Unknown discriminants are errors. */
export function union<A extends Arms>(name: string, arms: A): Codec<UnionOf<A>> {
  return {
    xdr: name,
    encode(w, v) {
      const arm = arms[v.type];
      if (!arm) throw new XdrError(`${name}: unknown discriminant ${v.type}`);
      w.int(v.type);
      arm.encode(w, v.value);
    },
    decode(r) {
      const type = r.int();
      const arm = arms[type];
      if (!arm) throw new XdrError(`${name}: unknown discriminant ${type}`);
      return { type, value: arm.decode(r) } as UnionOf<A>;
    },
  };
}

/** A codec that converts on the way in and out, e.g. a `char[32]` buffer to a JS string. */
export function map<A, B>(inner: Codec<A>, xdr: string, decode: (a: A) => B, encode: (b: B) => A): Codec<B> {
  return {
    xdr,
    encode: (w, v) => inner.encode(w, encode(v)),
    decode: (r) => decode(inner.decode(r)),
  };
}

/** Decodes a whole payload with `codec`; leftover bytes mean the layout is wrong, so they are an error. */
export function decodeAll<T>(codec: Codec<T>, payload: Buffer): T {
  const r = new XdrReader(payload);
  const value = codec.decode(r);
  r.end();
  return value;
}

/** Encodes `value` with `codec` into a new buffer. */
export function encodeToBuffer<T>(codec: Codec<T>, value: T): Buffer {
  const w = new XdrWriter();
  codec.encode(w, value);
  return w.finish();
}
