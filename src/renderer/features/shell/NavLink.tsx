import type { MouseEvent, ReactNode } from 'react';
import { useRouteStore } from '../../stores/route';

interface NavLinkProps {
  to: string;
  children: ReactNode;
  className?: string;
  testId?: string;
  /** Called when the person shows intent (pointer over the link, or focus on it). */
  onIntent?: () => void;
}

/** A real link (middle-click and copy work) that navigates in place on a plain click. */
export function NavLink({ to, children, className, testId, onIntent }: NavLinkProps) {
  const path = useRouteStore((s) => s.path);
  const navigate = useRouteStore((s) => s.navigate);
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
      return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a
      href={to}
      className={className}
      aria-current={path === to ? 'page' : undefined}
      onClick={onClick}
      onPointerEnter={onIntent}
      onFocus={onIntent}
      data-testid={testId}
    >
      {children}
    </a>
  );
}
