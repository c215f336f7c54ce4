import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on a free loopback port, keeping every message it is given, parsed. A recipient
 * in `reject` is refused as a real server does, naming it: `550 5.1.1 <address>: user unknown`.
 * `beforeAnswer` runs once a message is read and before the sender hears it was taken: a test holds a
 * send there.
 */
export async function startSmtpCatcher(
  options: { reject?: readonly string[]; beforeAnswer?: (recipients: string[]) => Promise<void> } = {},
): Promise<{ url: string; messages: ParsedMail[]; close: () => Promise<void> }> {
  const messages: ParsedMail[] = [];
  const reject = options.reject ?? [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!reject.includes(address.address)) return callback();
      callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: user unknown`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          await options.beforeAnswer?.(session.envelope.rcptTo.map((r) => r.address));
          messages.push(mail);
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface SmsRequest {
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

/** Stands in for Twilio's Messages API: records each POST and answers 201, or `failWith` for a number listed there. */
export async function startSmsProvider(failWith: Record<string, number> = {}): Promise<{ url: string; requests: SmsRequest[]; close: () => Promise<void> }> {
  const requests: SmsRequest[] = [];
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
  };
  const server = createServer((req, res) => {
    void body(req).then((form) => {
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, form });
      const status = failWith[form.To ?? ''] ?? 201;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 201 ? { sid: `SM${requests.length}`, status: 'queued' } : { code: 21610, message: 'unsubscribed recipient' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
