import { formatUsd, type CostEstimate as Estimate } from '../../shared/costEstimate';

interface CostEstimateProps {
  estimate: Estimate | null;
  /** Where the prices came from, e.g. "your price settings" or "documented defaults". */
  priceSource: string;
  n: number;
}

const tokens = (n: number) => n.toLocaleString('en-US');

/** The estimate shown before sending: tokens and cost, and what it assumed. */
export function CostEstimate({ estimate, priceSource, n }: CostEstimateProps) {
  if (!estimate) {
    return (
      <div className="cost-estimate" data-testid="cost-estimate" data-cost-micros="">
        <span className="cost-label">Estimate</span>{' '}
        <span className="muted">fix the parameters first</span>
      </div>
    );
  }
  const { usage } = estimate;
  return (
    <div
      className="cost-estimate"
      data-testid="cost-estimate"
      data-cost-micros={estimate.costMicros}
    >
      <div className="cost-line">
        <span className="cost-label">Estimate</span>
        <strong className="cost-value">≈ {formatUsd(estimate.costMicros)}</strong>
        <span className="muted">
          {tokens(usage.total_tokens)} tokens{n > 1 ? ` for ${n} images` : ''}
        </span>
      </div>
      <details className="cost-details">
        <summary>How this is estimated</summary>
        <ul>
          <li>
            {tokens(estimate.perImageOutputTokens)} output image tokens per image (the 1024 px token
            table scaled by pixel count)
          </li>
          <li>
            {tokens(usage.output_tokens)} output and {tokens(usage.input_tokens)} input tokens in
            all
            {usage.input_tokens_details.image_tokens > 0 &&
              ` (${tokens(usage.input_tokens_details.image_tokens)} for reference images)`}
          </li>
          <li>Each streamed partial image adds 100 output tokens</li>
          <li>Prices: {priceSource}</li>
          {estimate.assumptions.map((a) => (
            <li key={a}>Assumed: {a}</li>
          ))}
        </ul>
      </details>
    </div>
  );
}
