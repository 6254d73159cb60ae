// Pictures of images a session keeps (issue 33, thumbnails after a reload). A user item read from
// the session lists an image attachment with where the session keeps it (its entry and index),
// not its bytes; the chip asks the extension once (session/image) and shows the answer as a
// thumbnail. Images sent from this page are shown from what it sent (main.ts sentImages).
import type { FromWebview } from '../messages';

export interface StoredImage {
  mimeType: string;
  data: string;
}

const key = (entry: string, index: number) => `${entry}#${index}`;

/** The images asked for and received, by entry and index. */
export class StoredImages {
  private readonly got = new Map<string, StoredImage>();
  private readonly asked = new Set<string>();

  constructor(
    private readonly post: (m: FromWebview) => void,
    private readonly thumbnail: (mimeType: string, data: string) => HTMLImageElement,
  ) {}

  /** Puts a thumbnail on each image chip under root that names a stored image; asks for the missing. */
  decorate(root: ParentNode): void {
    root.querySelectorAll<HTMLElement>('.chip-image[data-image-entry]').forEach((chip) => {
      if (chip.querySelector('img')) return;
      const entry = chip.dataset.imageEntry!;
      const index = Number(chip.dataset.imageIndex ?? 0);
      const k = key(entry, index);
      const img = this.got.get(k);
      if (img) chip.prepend(this.thumbnail(img.mimeType, img.data));
      else if (!this.asked.has(k)) {
        this.asked.add(k);
        this.post({ type: 'image', entry, index });
      }
    });
  }

  /** An image the extension read (or undefined data when it could not): kept and shown. */
  arrived(root: ParentNode, entry: string, index: number, img: StoredImage | undefined): void {
    if (!img) return; // asked once; a chip without a picture still says "image"
    this.got.set(key(entry, index), img);
    this.decorate(root);
  }
}
