import { describe, expect, it } from 'vitest';
import { qrCode } from '../../web/dashboard/views/qr-code.js';

describe('a payment link’s QR code', () => {
  it('is inline SVG named by the URL it opens, the name escaped', async () => {
    const url = 'https://pay.example/l/pl_3Jd8s0aKq1VbT7wYxZ2mNg?a="b"&c=<d>$&';
    const markup = String(await qrCode(url));
    expect(markup).toMatch(
      /^<span class="qr"><svg role="img" aria-label="[^"]*" focusable="false" xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/,
    );
    expect(markup).toContain('aria-label="QR code for https://pay.example/l/pl_3Jd8s0aKq1VbT7wYxZ2mNg?a=&quot;b&quot;&amp;c=&lt;d&gt;$&amp;"');
    expect(markup).toMatch(/<\/svg>\n?<\/span>$/);
  });
});
