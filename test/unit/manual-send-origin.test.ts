import { describe, expect, it } from 'vitest';
import { manualSendOrigin } from '../../core/webhooks/manual-sends.js';

describe('manualSendOrigin: what a manual send is counted against', () => {
  it.each([
    ['https://Hooks.Example.com/a?b=c', 'https://hooks.example.com'],
    ['HTTPS://hooks.example.com:443/other', 'https://hooks.example.com'],
    ['https://hooks.example.com./x', 'https://hooks.example.com'],
    ['http://127.0.0.1:8080/x', 'http://127.0.0.1:8080'],
    ['https://[::1]:8443/', 'https://[::1]:8443'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example'],
  ])('%s counts as %s', (url, origin) => {
    expect(manualSendOrigin(url)).toBe(origin);
  });

  it('tells apart another port or scheme', () => {
    expect(manualSendOrigin('https://hooks.example.com:8443/')).not.toBe(manualSendOrigin('https://hooks.example.com/'));
    expect(manualSendOrigin('http://hooks.example.com/')).not.toBe(manualSendOrigin('https://hooks.example.com/'));
  });
});
