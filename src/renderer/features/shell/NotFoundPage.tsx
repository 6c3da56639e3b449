import { Page } from '../../components/Page';
import { NavLink } from './NavLink';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <Page id="not-found" title="Page not found" ready>
      <div className="panel">
        <p>
          The studio has no page at <code>{path}</code>.
        </p>
        <p>
          <NavLink to="/">Go to the start page</NavLink>
        </p>
      </div>
    </Page>
  );
}
