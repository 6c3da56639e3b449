/** A rectangle of mask pixels: the mask's own word, apart so its parts need not import the document. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
