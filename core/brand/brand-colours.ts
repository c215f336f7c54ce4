/**
 * A merchant's brand colour, made safe for the hosted page: WCAG 2.2 AA's relative luminance and
 * contrast ratio (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio), and the colours the page
 * derives from the brand. The page's buttons carry white text on the accent, its links and current
 * step are the accent on the page background (#f6f9fc) and panel (#fff), so the accent must read at
 * 4.5:1 against the lightest of them; the focus ring, a UI component, at 3:1. A brand colour too
 * light for that is darkened (its HSL lightness lowered, hue and saturation kept) until it does:
 * adjusted, never refused, and the dashboard says how.
 */

export const BRAND_COLOUR_PATTERN = /^#[0-9a-f]{6}$/;
export const TEXT_CONTRAST = 4.5;
export const UI_CONTRAST = 3;
/** The page's two light surfaces (web/assets/checkout.css --bg and --panel). */
const PAGE_BACKGROUND = '#f6f9fc';
const WHITE = '#ffffff';

type Rgb = [number, number, number];

/** `#FFEB3B`, `ffeb3b` or `#fe3` as `#ffeb3b`; undefined for anything else. */
export function normalizeBrandColour(input: string): string | undefined {
  const value = input.trim().toLowerCase().replace(/^#?/, '#');
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(value);
  const full = short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : value;
  return BRAND_COLOUR_PATTERN.test(full) ? full : undefined;
}

const toRgb = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG's relative luminance of an sRGB colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = toRgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

function toHsl([r, g, b]: Rgb): Rgb {
  const [rs, gs, bs] = [r / 255, g / 255, b / 255];
  const max = Math.max(rs, gs, bs);
  const min = Math.min(rs, gs, bs);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === rs ? (gs - bs) / d + (gs < bs ? 6 : 0) : max === gs ? (bs - rs) / d + 2 : (rs - gs) / d + 4;
  return [h / 6, s, l];
}

function fromHsl([h, s, l]: Rgb): Rgb {
  if (s === 0) return [l * 255, l * 255, l * 255];
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  return [channel(h + 1 / 3) * 255, channel(h) * 255, channel(h - 1 / 3) * 255];
}

/** The colour, darkened one lightness step at a time until it reads at `ratio` against `against`. */
function darkenUntil(hex: string, against: string, ratio: number): string {
  if (contrastRatio(hex, against) >= ratio) return hex;
  const [h, s, l] = toHsl(toRgb(hex));
  for (let lightness = l; lightness > 0; lightness -= 0.005) {
    const candidate = toHex(fromHsl([h, s, lightness]));
    if (contrastRatio(candidate, against) >= ratio) return candidate;
  }
  return '#000000';
}

export interface BrandPalette {
  /** What the merchant set. */
  brand: string;
  /** Buttons (under white text), links, the current step, the spinner: 4.5:1 on the page's surfaces. */
  accent: string;
  /** Buttons under the pointer, and the focus ring: darker still. */
  accentDark: string;
  /** The focus ring around every control: at least 3:1 against the page. */
  focus: string;
  /** Steps done: decoration only, the brand lightened. */
  accentSoft: string;
  /** Whether accent is not the brand colour itself. */
  adjusted: boolean;
  /** The brand's own contrast against the page, and the accent's. */
  contrast: { brand: number; accent: number; focus: number };
}

/** The colours the page uses for this brand colour (normalized, `#rrggbb`). */
export function brandPalette(brand: string): BrandPalette {
  const accent = darkenUntil(brand, PAGE_BACKGROUND, TEXT_CONTRAST);
  const [h, s, l] = toHsl(toRgb(accent));
  const accentDark = toHex(fromHsl([h, s, Math.max(0, l - 0.08)]));
  const focus = darkenUntil(accentDark, PAGE_BACKGROUND, UI_CONTRAST);
  const [bh, bs] = toHsl(toRgb(brand));
  const accentSoft = toHex(fromHsl([bh, bs, 0.82]));
  return {
    brand,
    accent,
    accentDark,
    focus,
    accentSoft,
    adjusted: accent !== brand,
    contrast: {
      brand: round(contrastRatio(brand, PAGE_BACKGROUND)),
      accent: round(Math.min(contrastRatio(accent, PAGE_BACKGROUND), contrastRatio(accent, WHITE))),
      focus: round(contrastRatio(focus, PAGE_BACKGROUND)),
    },
  };
}

const round = (ratio: number) => Math.floor(ratio * 100) / 100;

/** One sentence for the dashboard: which colours the page will use for this brand, and why. */
export function explainPalette(palette: BrandPalette): string {
  if (!palette.adjusted) {
    return `${palette.brand} reads at ${palette.contrast.brand}:1 against the page, above the 4.5:1 WCAG 2.2 AA asks of text, so buttons and links use it as it is.`;
  }
  return `${palette.brand} reads at only ${palette.contrast.brand}:1 against the page; text and buttons need 4.5:1 (WCAG 2.2 AA), so the page darkens it to ${palette.accent} (${palette.contrast.accent}:1), same hue.`;
}

/** The custom properties checkout.css reads, as a stylesheet of its own (the CSP allows no inline style). */
export function brandStylesheet(palette: BrandPalette): string {
  return `:root{--accent:${palette.accent};--accent-dark:${palette.accentDark};--focus:${palette.focus};--accent-soft:${palette.accentSoft}}\n`;
}
