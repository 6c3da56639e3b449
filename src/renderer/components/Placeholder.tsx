import { Page } from './Page';

interface PlaceholderProps {
  id: string;
  title: string;
  description: string;
  /** What the page will hold, as a short list. */
  coming: readonly string[];
}

/** A page whose content is still being built: says what will be here. */
export function Placeholder({ id, title, description, coming }: PlaceholderProps) {
  return (
    <Page id={id} title={title} description={description} ready>
      <div className="panel placeholder">
        <p>This page is being built. It will show:</p>
        <ul>
          {coming.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </div>
    </Page>
  );
}
