import { useEditStore } from '../../stores/edit';

/** The edit chain so far: click a step to branch from it. */
export function ChainTrail() {
  const chain = useEditStore((s) => s.chain);
  const branchFrom = useEditStore((s) => s.branchFrom);
  return (
    <nav className="chain" aria-label="Edit chain" data-testid="edit-chain">
      <ol>
        {chain.map((step, i) => (
          <li key={step.id}>
            <button
              type="button"
              onClick={() => branchFrom(step.id)}
              disabled={i === chain.length - 1}
              aria-label={i === 0 ? 'Original image' : `Step ${i}: ${step.prompt ?? ''}`}
              title={step.prompt ?? 'Original'}
            >
              <img src={step.url} alt="" />
            </button>
          </li>
        ))}
      </ol>
      <span className="muted">Click an earlier step to branch from it.</span>
    </nav>
  );
}
