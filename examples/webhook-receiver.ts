// A receiver of Dossier's webhooks that checks every delivery's signature before it believes it.
// Run: npm run build && WEBHOOK_SECRET=whsec_… PORT=8080 node dist/examples/webhook-receiver.js
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** An event of a watch, as Dossier POSTs it. */
export interface DossierEvent {
  type: string;
  watch_id: string;
  domain: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * A request listener for `node:http` that takes Dossier's deliveries: a body is believed only when its
 * Standard Webhooks signature checks out with the watch's secret and its timestamp is within five
 * minutes; anything else is a 401. `onEvent` gets each verified event once, however often it is
 * delivered (`webhook-id` is the same on every attempt).
 */
export function receiveWebhooks(secret: string, onEvent: (event: DossierEvent) => void) {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let event: DossierEvent;
      try {
        event = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as DossierEvent;
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (!seen.has(id)) {
        seen.add(id);
        onEvent(event);
      }
      res.writeHead(204).end();
    });
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const onEvent = (event: DossierEvent): void => console.log(event.type, event.domain, JSON.stringify(event.data));
  createServer(receiveWebhooks(process.env.WEBHOOK_SECRET ?? '', onEvent)).listen(Number(process.env.PORT ?? 8080));
}
