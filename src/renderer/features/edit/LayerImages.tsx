import { useEditStore, type ReferenceImage } from '../../stores/edit';
import { layerStack, lookOf, showsTopOnly } from './layers';

/**
 * The picture under the mask: the working image, and over it, when a layer is hidden or
 * blended, the layer stack as it shows (the base, then each visible layer at its opacity).
 */
export function LayerImages({ source, pixelated }: { source: ReferenceImage; pixelated: boolean }) {
  const chain = useEditStore((s) => s.chain);
  const looks = useEditStore((s) => s.layerLooks);
  const stack = layerStack(chain, source);
  const className = pixelated ? 'pixelated' : undefined;
  return (
    <>
      <img
        src={source.url}
        alt=""
        width={source.width}
        height={source.height}
        draggable={false}
        className={className}
      />
      {!showsTopOnly(stack, looks) && (
        <div className="layer-view" data-testid="layer-view">
          {stack.map((step, i) => {
            const look = lookOf(looks, step.id);
            if (i > 0 && look.hidden) return null;
            return (
              <img
                key={step.id}
                src={step.url}
                alt=""
                draggable={false}
                className={className}
                style={{ opacity: i === 0 ? 1 : look.opacity }}
                data-step-id={step.id}
              />
            );
          })}
        </div>
      )}
    </>
  );
}
