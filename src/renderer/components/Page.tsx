import { useEffect, useRef, type ReactNode } from 'react';

interface PageProps {
  /** Used for data-testid="page-<id>". */
  id: string;
  title: string;
  /** One line under the title. */
  description?: ReactNode;
  /** True once the page's data has loaded: end-to-end tests wait on data-ready="true". */
  ready: boolean;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}

/** The root of every page: its heading (focused on arrival, for screen readers) and readiness. */
export function Page({ id, title, description, ready, actions, children, className }: PageProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Atelier`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);

  return (
    <section
      className={`page ${className ?? ''}`}
      data-testid={`page-${id}`}
      data-ready={ready ? 'true' : 'false'}
      aria-labelledby={`page-${id}-title`}
    >
      <header className="page-header">
        <div>
          <h1 id={`page-${id}-title`} ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {description && <p className="page-description">{description}</p>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
