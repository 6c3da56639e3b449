import { Placeholder } from '../../components/Placeholder';

// Placeholder: the page is routed and linked; replace the body with the real page.
export function GalleryPage() {
  return (
    <Placeholder
      id="gallery"
      title="Gallery"
      description="Every image from the studio and from API calls."
      coming={[
        'Thumbnails with search and favourites, fast with thousands of images',
        'Prompt, parameters, requested and delivered size, tokens, cost and request id',
        'Re-use parameters, edit this, the edit chain, download, compare two side by side',
      ]}
    />
  );
}
