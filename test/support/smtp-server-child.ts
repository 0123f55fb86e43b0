// A real SMTP server (the smtp-server package) for the SMTP transport tests, run as a child process
// by smtp-server.ts. It listens on 127.0.0.1 on a free port, prints {"event":"listening","port"} and
// then one {"event":"mail","from","to","raw"} line per received message on stdout, refuses every
// recipient whose address starts with "reject" (550), and exits when its stdin closes.
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address.startsWith('reject')) {
      const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
      error.responseCode = 550;
      callback(error);
      return;
    }
    callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const from = session.envelope.mailFrom;
      process.stdout.write(
        `${JSON.stringify({
          event: 'mail',
          from: from ? from.address : null,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })}\n`,
      );
      callback();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ event: 'listening', port })}\n`);
});

process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
