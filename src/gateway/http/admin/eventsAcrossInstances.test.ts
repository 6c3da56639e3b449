import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BudgetAlert } from '../../../shared/admin';
import type { GatewayEventMap, GatewayEvents } from '../../core/events';
import { createImagesRepository } from '../../gallery/repository';
import { createKeysRepository } from '../../keys/repository';
import { testStorage } from '../../storage/testing';
import { createUsageRepository } from '../../usage/repository';
import { relayLiveEvents } from '../liveEvents';
import { eventsAdmin } from './events';

/** The first `event: NAME` block of an SSE stream, parsed; rejects after `ms`. */
async function firstEvent(res: Response, name: string, ms: number): Promise<unknown> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = setTimeout(() => void reader.cancel(), ms);
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`no ${name} event within ${ms} ms; heard:\n${text}`);
      text += value;
      const block = text.split('\n\n').find((b) => b.startsWith(`event: ${name}\n`));
      if (block) return JSON.parse(block.slice(block.indexOf('data: ') + 6));
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
}

describe('the studio event stream on a team gateway', () => {
  it("shows another instance's budget notice within a second, with the key's name", async () => {
    const storage = await testStorage('postgres');
    const keys = createKeysRepository(storage.engine);
    const { record } = await keys.create({ name: 'render farm', group: 'default' });

    // Instance A serves the studio's stream; instance B, on its own connection, passes a budget.
    const eventsA: GatewayEvents = new EventEmitter<GatewayEventMap>();
    const relayA = relayLiveEvents({ events: eventsA, engine: storage.engine, log: () => {} });
    const eventsB: GatewayEvents = new EventEmitter<GatewayEventMap>();
    const relayB = relayLiveEvents({
      events: eventsB,
      engine: await storage.connect(),
      log: () => {},
    });
    onTestFinished(() => {
      relayA.close();
      relayB.close();
    });
    const app = express();
    app.use(
      eventsAdmin({
        live: relayA.live,
        keys,
        usage: createUsageRepository(storage.engine),
        images: createImagesRepository(storage.engine),
      }),
    );
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const alert: BudgetAlert = {
      apiKeyId: record.id,
      percent: 100,
      period: 'month',
      budgetMicros: 50_000,
      spentMicros: 50_200,
      periodStart: 1_800_000_000_000,
      resetsAt: null,
      at: 1_800_000_100_000,
    };
    const heard = firstEvent(res, 'budget', 1_000);
    eventsB.emit('budget', alert);
    expect(await heard).toEqual({ ...alert, apiKeyName: 'render farm' });
  });
});
