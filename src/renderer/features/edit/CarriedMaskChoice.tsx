import { useMaskStore } from '../../stores/mask';

/**
 * "Edit this result" carries the last mask to the result when the sizes match: said out loud,
 * with the choice to keep it or start clean (issue 22, defect 13).
 */
export function CarriedMaskChoice() {
  const carriedTo = useMaskStore((s) => s.carriedTo);
  const sourceId = useMaskStore((s) => s.sourceId);
  const settle = useMaskStore((s) => s.settleCarried);
  if (!carriedTo || carriedTo !== sourceId) return null;
  return (
    <div className="notice carried-mask" role="status" data-testid="mask-carried">
      <span>The last mask is kept for this result.</span>
      <button type="button" onClick={() => settle(true)} data-testid="mask-keep">
        Keep last mask
      </button>
      <button type="button" onClick={() => settle(false)} data-testid="mask-start-clean">
        Start clean
      </button>
    </div>
  );
}
