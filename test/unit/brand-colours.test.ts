import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brandPalette, brandStylesheet, contrastRatio, explainPalette, normalizeBrandColour, relativeLuminance } from '../../core/brand/brand-colours.js';

describe('WCAG contrast', () => {
  it('matches the specification’s end points and known pairs', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBe(1);
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    // The page's own purple on white, and #767676, the lightest grey at 4.5:1 on white.
    expect(contrastRatio('#635bff', '#ffffff')).toBeCloseTo(4.7, 2);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });
});

describe('normalizeBrandColour', () => {
  it('takes #rrggbb, rrggbb and #rgb in any case', () => {
    expect(normalizeBrandColour('#FFEB3B')).toBe('#ffeb3b');
    expect(normalizeBrandColour(' ffeb3b ')).toBe('#ffeb3b');
    expect(normalizeBrandColour('#Fe3')).toBe('#ffee33');
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'yellow', '#ffeb3', '#ffeb3bff', 'rgb(1,2,3)', '#gggggg', '#ffeb3b;}body{']) expect(normalizeBrandColour(bad), bad).toBeUndefined();
  });
});

describe('brandPalette', () => {
  it('keeps a dark enough brand colour as it is', () => {
    const palette = brandPalette('#4b45c6');
    expect(palette.accent).toBe('#4b45c6');
    expect(palette.adjusted).toBe(false);
    expect(explainPalette(palette)).toContain('as it is');
  });

  it('darkens a light yellow until text and buttons read at 4.5:1, and says so', () => {
    const palette = brandPalette('#ffeb3b');
    expect(palette.adjusted).toBe(true);
    expect(palette.contrast.brand).toBeLessThan(1.5);
    expect(contrastRatio(palette.accent, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(palette.accent, '#f6f9fc')).toBeGreaterThanOrEqual(4.5);
    // Same hue: still a yellow (red and green well above blue), not a grey.
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(palette.accent.slice(i, i + 2), 16)) as [number, number, number];
    expect(Math.min(r, g)).toBeGreaterThan(b + 40);
    expect(explainPalette(palette)).toBe(
      `#ffeb3b reads at only ${palette.contrast.brand}:1 against the page; text and buttons need 4.5:1 (WCAG 2.2 AA), so the page darkens it to ${palette.accent} (${palette.contrast.accent}:1), same hue.`,
    );
  });

  it('gives every colour contrast enough: accent and its hover 4.5:1 under white text, focus 3:1 on the page', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) => {
        const palette = brandPalette(`#${n.toString(16).padStart(6, '0')}`);
        for (const surface of ['#ffffff', '#f6f9fc']) {
          expect(contrastRatio(palette.accent, surface)).toBeGreaterThanOrEqual(4.5);
          expect(contrastRatio(palette.accentDark, surface)).toBeGreaterThanOrEqual(4.5);
          expect(contrastRatio(palette.focus, surface)).toBeGreaterThanOrEqual(3);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('writes the custom properties checkout.css reads', () => {
    expect(brandStylesheet(brandPalette('#4b45c6'))).toMatch(
      /^:root\{--accent:#4b45c6;--accent-dark:#[0-9a-f]{6};--focus:#[0-9a-f]{6};--accent-soft:#[0-9a-f]{6}\}\n$/,
    );
  });
});
