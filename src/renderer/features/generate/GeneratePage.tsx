import { useState } from 'react';
import { ImageSlots } from '../../components/ImageSlots';
import { ResultsViewer } from './ResultsViewer';
import { LazySessionRuns } from './LazySessionRuns';
import { Page } from '../../components/Page';
import { isImplicitSubmit } from '../../lib/implicitSubmit';
import { useEditStore } from '../../stores/edit';
import { useGenerateStore } from '../../stores/generate';
import { useRouteStore } from '../../stores/route';
import { useGenerateRun, type ImageSlot } from '../../stores/run';
import { linkToGallery, toReference } from '../edit/references';
import { useShortcuts } from '../shell/useShortcuts';
import { composePrompt, promptProblem } from './composePrompt';
import { requestFields } from './params';
import { ParamsPanel } from './ParamsPanel';
import { PresetBar } from './PresetBar';
import { PromptComposer } from './PromptComposer';
import { PromptHistory } from './PromptHistory';
import { usePromptHistory } from '../../stores/promptHistory';
import { downloadSlot, RunProgress, SendBar, slotCost, slotFileName } from './SendParts';
import { useImagePricing } from './useImagePricing';
import { useSpendGuard } from '../budget/SpendConfirm';
import { useMediaQuery } from '../../lib/mediaQuery';
import './generate.css';

/** Where Generate's parameters stop folding; generate.css narrows the request column below it. */
const WIDE_WINDOW = '(min-width: 90rem)';

export function GeneratePage() {
  const draft = useGenerateStore((s) => s.draft);
  const params = useGenerateStore((s) => s.params);
  const structured = useGenerateStore((s) => s.structured);
  const setDraft = useGenerateStore((s) => s.setDraft);
  const setParams = useGenerateStore((s) => s.setParams);
  const setStructured = useGenerateStore((s) => s.setStructured);
  const apply = useGenerateStore((s) => s.apply);

  const run = useGenerateRun();
  // Below 90rem (1440 px) the parameters past Size, Number and Quality fold into a drawer: the
  // request column narrows and the picture keeps the width (generate.css).
  const wide = useMediaQuery(WIDE_WINDOW);
  const navigate = useRouteStore((s) => s.navigate);
  const [tried, setTried] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** The result open in the full-window viewer (its slot index). */
  const [viewing, setViewing] = useState<number | null>(null);

  const prompt = composePrompt(draft);
  const problem = promptProblem(prompt);
  const pricing = useImagePricing(params, prompt);
  const { check, price, estimate } = pricing;
  const spend = useSpendGuard(estimate?.costMicros ?? null);
  const canSend = check.ok && !problem && !spend.blocker;
  const running = run.phase === 'running';

  const send = async () => {
    // One request at a time: a second Ctrl+Enter must not pay for a second run.
    if (running) return;
    setTried(true);
    if (!canSend || !check.size || !estimate) return;
    const size = check.size;
    const summary = {
      n: params.n,
      size,
      quality: params.quality,
      estimateMicros: estimate.costMicros,
    };
    if (!(await spend.confirm(summary))) return;
    usePromptHistory.getState().add(draft);
    const release = spend.hold(estimate.costMicros);
    void run
      .start({
        call: { endpoint: 'generations', body: { prompt, ...requestFields(params, size) } },
        n: params.n,
        model: params.model,
        prompt,
        requestedSize: size,
      })
      .finally(release);
  };
  const sendNow = () => void send();
  // Escape stops a run only while one is going: otherwise it stays with dialogs and fields.
  useShortcuts(running ? { send: sendNow, cancel: run.cancel } : { send: sendNow });

  const editResult = async (slot: ImageSlot) => {
    if (!slot.blob) return;
    try {
      const reference = await toReference(slot.blob, slotFileName(slot.blob, slot));
      useEditStore.getState().startFrom(reference);
      linkToGallery(reference.id, run.requestId, slot.index);
      navigate('/edit');
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };

  const blockers = [problem, ...Object.values(check.issues), spend.blocker].filter(
    (b): b is string => !!b,
  );

  return (
    <Page
      id="generate"
      title="Generate"
      description="Describe an image; watch it stream in; see what it cost."
      ready={pricing.ready}
      className="page-generate"
    >
      <div className="workspace">
        <form
          className="compose-panel panel"
          aria-label="Request"
          onKeyDown={(e) => {
            if (isImplicitSubmit(e)) e.preventDefault();
          }}
          onSubmit={(e) => {
            e.preventDefault();
            sendNow();
          }}
        >
          <PresetBar draft={draft} params={params} onApply={apply} />
          <PromptComposer
            draft={draft}
            onChange={setDraft}
            structured={structured}
            onStructuredChange={setStructured}
            error={tried ? problem : null}
            history={<PromptHistory onPick={(picked) => setDraft(picked)} />}
          />
          <ParamsPanel
            params={params}
            check={check}
            onChange={setParams}
            serverError={run.phase === 'error' ? run.error : null}
            folded={!wide}
          />
          <SendBar
            estimate={estimate}
            priceSource={pricing.priceSource}
            n={params.n}
            label={
              running ? 'Generating…' : params.n > 1 ? `Generate ${params.n} images` : 'Generate'
            }
            disabled={running}
            submitTestId="generate-submit"
            blockersId="generate-blockers"
            blockers={tried ? blockers : []}
          />
        </form>

        <section className="results-panel" aria-label="Results" data-testid="generate-results">
          <RunProgress run={run} price={price} estimate={estimate} />
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
              costOf={slotCost(price)}
              onDownload={downloadSlot()}
              onEdit={(slot) => void editResult(slot)}
              editLabel="Edit this"
              onView={(slot) => setViewing(slot.index)}
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
          <LazySessionRuns />
        </section>
      </div>
      {spend.dialog}
      {viewing !== null && (
        <ResultsViewer
          slots={run.slots}
          index={viewing}
          onIndex={setViewing}
          onClose={() => setViewing(null)}
        />
      )}
    </Page>
  );
}
