import { describe, expect, it } from 'vitest';
import { acceptedEncoding } from '../../web/compression.js';

describe('acceptedEncoding', () => {
  it('prefers brotli, then gzip, as the browser allows', () => {
    expect(acceptedEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(acceptedEncoding('gzip, deflate')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(acceptedEncoding('*')).toBe('br');
    expect(acceptedEncoding('*, br;q=0')).toBe('gzip');
  });

  it('compresses nothing when nothing we speak is allowed', () => {
    expect(acceptedEncoding(undefined)).toBeUndefined();
    expect(acceptedEncoding('identity')).toBeUndefined();
    expect(acceptedEncoding('deflate')).toBeUndefined();
    expect(acceptedEncoding('gzip;q=0, br;q=0')).toBeUndefined();
  });
});
