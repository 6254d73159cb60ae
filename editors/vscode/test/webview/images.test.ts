// Thumbnails after a reload (issue 33) in the chat page (headless Chromium): a user item read from
// the session names its image (entry, index) instead of carrying the bytes; the chip asks the
// extension for it once and shows the picture; a chip without a ref asks nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DisplayState } from '../../src/protocol';
import { clearPosted, launch, openChat, posted, send, waitPosted } from './harness';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

function reopened(version: number): { type: 'snapshot'; version: number; state: DisplayState } {
  return {
    type: 'snapshot',
    version,
    state: {
      model: 'fake/m1',
      status: 'idle',
      items: [
        { id: 'he1', kind: 'user', text: 'what is this?', attachments: [{ type: 'image', path: 'image/png', image: { entry: 'e1', index: 0 } }] },
        { id: 'ha1', kind: 'assistant', text: 'A dot.' },
        { id: 'he2', kind: 'user', text: 'and an old one', attachments: [{ type: 'image', path: 'image/png' }] },
      ],
    } as unknown as DisplayState,
  };
}

describe('chat webview: stored images', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    await browser?.close();
  });

  it('asks for a stored image once and shows it as a thumbnail after a reload', async () => {
    await clearPosted(page);
    await send(page, reopened(1));
    assert.deepEqual(await waitPosted(page, 'image'), { type: 'image', entry: 'e1', index: 0 });
    await send(page, { type: 'image', entry: 'e1', index: 0, mimeType: 'image/png', data: PNG });
    await page.waitForSelector('.kind-user[data-id="he1"] .chip-image img.thumb');
    assert.ok(
      await page.$eval('.kind-user[data-id="he1"] img.thumb', (i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth === 1),
      'the thumbnail shows the picture',
    );
    assert.equal(await page.locator('.kind-user[data-id="he2"] img.thumb').count(), 0, 'no ref, no picture');
    // Drawn again (a new snapshot): the picture comes from what was received, no second ask.
    await send(page, reopened(2));
    await page.waitForSelector('.kind-user[data-id="he1"] .chip-image img.thumb');
    assert.equal((await posted(page)).filter((m) => m.type === 'image').length, 1);
  });
});
