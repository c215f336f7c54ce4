import { randomInt } from 'node:crypto';

/**
 * The dashboard as a browser without JavaScript uses it: a cookie jar, plain form posts from its own
 * origin carrying the form token of the last page, and no redirect followed unless asked. Each client
 * gets its own forwarded address (the stack must trust one proxy hop), so sign-in limits count per test.
 */
export function dashboardClient(checkoutUrl: string, address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`) {
  const jar = new Map<string, string>();
  let csrf = '';

  function keep(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  async function request(method: string, path: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const response = await fetch(`${checkoutUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        origin: checkoutUrl,
        'x-forwarded-for': address,
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    keep(response);
    const body = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) csrf = token;
    return { status: response.status, location: response.headers.get('location'), body, headers: response.headers };
  }

  return {
    jar,
    get: (path: string, headers?: Record<string, string>) => request('GET', path, headers ? { headers } : {}),
    /** A form post with the last page's form token, unless the form says otherwise (`csrf: ''` for none). */
    post: (path: string, form: Record<string, string> = {}, headers?: Record<string, string>) =>
      request('POST', path, { form: { csrf, ...form }, ...(headers ? { headers } : {}) }),
    async signIn(apiKey: string) {
      await request('GET', '/dashboard/sign-in');
      return this.post('/dashboard/sign-in', { apiKey });
    },
    async signInAsOperator(operatorToken: string) {
      await request('GET', '/dashboard/sign-in/operator');
      return this.post('/dashboard/sign-in/operator', { operatorToken });
    },
  };
}
