import type { ImageRecord } from '../../../shared/admin';
import { Dialog } from '../../components/Dialog';
import { adminUrls } from '../../lib/api/urls';
import { imageFacts } from './imageFacts';

interface CompareDialogProps {
  images: [ImageRecord, ImageRecord];
  keyName: (id: string | null) => string | null;
  onClose: () => void;
}

/** Two images side by side, with their parameters in rows and the differences marked. */
export function CompareDialog({ images, keyName, onClose }: CompareDialogProps) {
  const [a, b] = images;
  const factsA = imageFacts(a, keyName);
  const factsB = new Map(imageFacts(b, keyName).map((f) => [f.id, f.value] as const));
  return (
    <Dialog open onClose={onClose} title="Compare" testId="gallery-compare" wide>
      <div className="compare-pair">
        {images.map((image, i) => (
          <figure key={image.id} data-testid="compare-image" data-image-id={image.id}>
            <img
              src={adminUrls.file(image.id)}
              alt={`${i === 0 ? 'Left' : 'Right'}: ${image.prompt}`}
            />
            <figcaption>{image.prompt}</figcaption>
          </figure>
        ))}
      </div>
      <div className="table-wrap">
        <table className="data-table compare-facts">
          <caption className="visually-hidden">Parameters of both images</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Parameter</span>
              </th>
              <th scope="col">Left</th>
              <th scope="col">Right</th>
            </tr>
          </thead>
          <tbody>
            {factsA
              .filter((f) => f.id !== 'request' && f.id !== 'created')
              .map((fact) => {
                const other = factsB.get(fact.id) ?? '—';
                const differs = other !== fact.value;
                return (
                  <tr
                    key={fact.id}
                    className={differs ? 'differs' : undefined}
                    data-differs={differs}
                  >
                    <th scope="row">
                      {fact.label}
                      {differs && <span className="visually-hidden"> (differs)</span>}
                    </th>
                    <td className="wrap">{fact.value}</td>
                    <td className="wrap">{other}</td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      </div>
    </Dialog>
  );
}
