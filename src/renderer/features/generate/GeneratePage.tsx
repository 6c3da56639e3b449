import { useEffect, useState } from 'react';
import { estimateImageRequest, formatUsd, usageCostMicros } from '../../../shared/costEstimate';
import { CostEstimate } from '../../components/CostEstimate';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ImageSlots } from '../../components/ImageSlots';
import { Page } from '../../components/Page';
import { RunStatus } from '../../components/RunStatus';
import { imageFileName, saveBlob } from '../../lib/files';
import { formatCombo, isMacPlatform } from '../../lib/shortcuts';
import { useEditStore } from '../../stores/edit';
import { useGenerateStore } from '../../stores/generate';
import { priceFor, usePricesStore } from '../../stores/prices';
import { useRouteStore } from '../../stores/route';
import { useGenerateRun, type ImageSlot } from '../../stores/run';
import { linkToGallery, toReference } from '../edit/references';
import { useShortcuts } from '../shell/useShortcuts';
import { composePrompt, promptProblem } from './composePrompt';
import { checkParams, estimateInput, requestFields } from './params';
import { ParamsPanel } from './ParamsPanel';
import { PresetBar } from './PresetBar';
import { PromptComposer } from './PromptComposer';
import { priceSource } from './priceSource';

export function GeneratePage() {
  const draft = useGenerateStore((s) => s.draft);
  const params = useGenerateStore((s) => s.params);
  const structured = useGenerateStore((s) => s.structured);
  const setDraft = useGenerateStore((s) => s.setDraft);
  const setParams = useGenerateStore((s) => s.setParams);
  const setStructured = useGenerateStore((s) => s.setStructured);
  const apply = useGenerateStore((s) => s.apply);

  const pricePhase = usePricesStore((s) => s.phase);
  const prices = usePricesStore((s) => s.prices);
  const loadPrices = usePricesStore((s) => s.load);
  useEffect(() => void loadPrices(), [loadPrices]);

  const run = useGenerateRun();
  const navigate = useRouteStore((s) => s.navigate);
  const [tried, setTried] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const prompt = composePrompt(draft);
  const problem = promptProblem(prompt);
  const check = checkParams(params);
  const price = priceFor(prices, params.model);
  const estimate = check.ok
    ? estimateImageRequest(estimateInput(params, check, prompt), price)
    : null;
  const canSend = check.ok && !problem;
  const running = run.phase === 'running';

  const send = () => {
    // One request at a time: a second Ctrl+Enter must not pay for a second run.
    if (running) return;
    setTried(true);
    if (!canSend || !check.size) return;
    void run.start({
      call: { endpoint: 'generations', body: { prompt, ...requestFields(params, check.size) } },
      n: params.n,
      model: params.model,
      prompt,
      requestedSize: check.size,
    });
  };
  useShortcuts({ send });

  const costOf = (slot: ImageSlot) =>
    slot.usage ? formatUsd(usageCostMicros(slot.usage, price)) : null;
  const download = (slot: ImageSlot) => {
    if (slot.blob) void saveBlob(slot.blob, imageFileName(slot.blob, new Date(), slot.index));
  };
  const editResult = async (slot: ImageSlot) => {
    if (!slot.blob) return;
    try {
      const reference = await toReference(
        slot.blob,
        imageFileName(slot.blob, new Date(), slot.index),
      );
      useEditStore.getState().startFrom(reference);
      linkToGallery(reference.id, run.requestId, slot.index);
      navigate('/edit');
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };

  const received = run.slots.filter((s) => s.state === 'done').length;
  const blockers = [problem, ...Object.values(check.issues)].filter(Boolean);

  return (
    <Page
      id="generate"
      title="Generate"
      description="Describe an image; watch it stream in; see what it cost."
      ready={pricePhase === 'ready' || pricePhase === 'defaults'}
      className="page-generate"
    >
      <div className="workspace">
        <form
          className="compose-panel panel"
          aria-label="Request"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <PresetBar draft={draft} params={params} onApply={apply} />
          <PromptComposer
            draft={draft}
            onChange={setDraft}
            structured={structured}
            onStructuredChange={setStructured}
            error={tried ? problem : null}
          />
          <ParamsPanel
            params={params}
            check={check}
            onChange={setParams}
            serverError={run.phase === 'error' ? run.error : null}
          />
          <div className="send-bar">
            <CostEstimate
              estimate={estimate}
              priceSource={priceSource(pricePhase, prices, params.model)}
              n={params.n}
            />
            <div className="send-row">
              <button
                type="submit"
                className="primary"
                disabled={running}
                aria-describedby="generate-blockers"
                data-testid="generate-submit"
              >
                {running
                  ? 'Generating…'
                  : params.n > 1
                    ? `Generate ${params.n} images`
                    : 'Generate'}
              </button>
              <kbd className="muted">{formatCombo('mod+enter', isMacPlatform())}</kbd>
            </div>
            <p id="generate-blockers" className="blockers" aria-live="polite">
              {tried && blockers.length > 0 ? `Cannot send yet: ${blockers.join('; ')}` : ''}
            </p>
          </div>
        </form>

        <section className="results-panel" aria-label="Results" data-testid="generate-results">
          <RunStatus
            phase={run.phase}
            startedAt={run.startedAt}
            finishedAt={run.finishedAt}
            n={run.slots.length}
            received={received}
            usage={run.usage}
            costMicros={run.usage ? usageCostMicros(run.usage, price) : null}
            estimateMicros={estimate?.costMicros ?? null}
            requestId={run.requestId}
            onCancel={run.cancel}
            onRetry={() => void run.retry()}
          />
          {run.error && <ErrorNotice error={run.error} onRetry={() => void run.retry()} />}
          {notice && (
            <p className="notice notice-error" role="alert">
              {notice}
            </p>
          )}
          {run.slots.length > 0 ? (
            <ImageSlots
              slots={run.slots}
              phase={run.phase}
              requestedSize={run.request?.requestedSize ?? 'auto'}
              partialImages={params.stream ? params.partialImages : 0}
              costOf={costOf}
              onDownload={download}
              onEdit={(slot) => void editResult(slot)}
              editLabel="Edit this"
            />
          ) : (
            <div className="empty-results">
              <p>Your images appear here, with previews while they are made.</p>
              <p className="muted">
                Nothing is sent until you press Generate. The estimate beside the button says what
                it will cost.
              </p>
            </div>
          )}
        </section>
      </div>
    </Page>
  );
}
