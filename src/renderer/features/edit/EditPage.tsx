import { useState } from 'react';
import { Page } from '../../components/Page';
import { isImplicitSubmit } from '../../lib/implicitSubmit';
import { useEditStore } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { useEditRun } from '../../stores/run';
import { promptProblem } from '../generate/composePrompt';
import { requestFields } from '../generate/params';
import { SendBar } from '../generate/SendParts';
import { ResultsViewer } from '../generate/ResultsViewer';
import { useImagePricing } from '../generate/useImagePricing';
import { useSpendGuard } from '../budget/SpendConfirm';
import { useShortcuts } from '../shell/useShortcuts';
import { EditCanvasPanel } from './EditCanvasPanel';
import { EditOptions } from './EditOptions';
import { EditPromptField } from './EditPromptField';
import { buildEditForm } from './editRequest';
import { EditResults } from './EditResults';
import { EditViewSwitch, type EditView } from './EditViewSwitch';
import { GalleryPicker } from './GalleryPicker';
import { exportMaskCached } from './mask/exportMask';
import { MaskPreview } from './MaskPreview';
import { MaskSendChoice } from './MaskSendChoice';
import { useOutpaint } from './outpaint/useOutpaint';
import { useEditResult } from './useEditResult';
import { useReferenceIntake } from './useReferenceIntake';
import { EditSources } from './EditSources';
import { useEditSource, useMaskRefusal } from './useEditSource';
import { RunNote } from './RunNote';
import './editStyles';

export function EditPage() {
  const { references, source } = useEditSource();
  const prompt = useEditStore((s) => s.prompt);
  const params = useEditStore((s) => s.params);
  const sendMask = useEditStore((s) => s.sendMask);
  const runSource = useEditStore((s) => s.runSource);
  const edit = useEditStore.getState;
  const setParams = useEditStore((s) => s.setParams);

  const maskSourceId = useMaskStore((s) => s.sourceId);

  const run = useEditRun();
  const [tried, setTried] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const refusal = useMaskRefusal();
  const [preparing, setPreparing] = useState(false);
  const [selected, setSelected] = useState(0);
  /** The main column shows the mask canvas or the run's result, each within the window. */
  const [view, setView] = useState<EditView>('mask');
  /** The result open in the full-window viewer (its slot index). */
  const [viewing, setViewing] = useState<number | null>(null);

  const problem = promptProblem(prompt);
  const pricing = useImagePricing(params, prompt, references);
  const { check, price, estimate } = pricing;
  const running = run.phase === 'running' || preparing;
  const spend = useSpendGuard(estimate?.costMicros ?? null);

  const intake = useReferenceIntake(setNotice);

  const send = async (withMask = sendMask) => {
    if (running) return;
    setTried(true);
    refusal.clear();
    if (!source || problem || !check.ok || !check.size || !estimate || spend.blocker) return;
    const doc = useMaskStore.getState().doc;
    let mask: Blob | null = null;
    if (withMask) {
      if (!doc || maskSourceId !== source.id || doc.isEmpty()) {
        refusal.refuse({ doc, version: doc?.version ?? 0 });
        return;
      }
      mask = await exportMaskCached(doc, useMaskStore.getState().feather);
    }
    const summary = {
      n: params.n,
      size: check.size,
      quality: params.quality,
      estimateMicros: estimate.costMicros,
    };
    if (!(await spend.confirm(summary))) return;
    setPreparing(true);
    try {
      const form = await buildEditForm(
        references,
        { prompt, ...requestFields(params, check.size) },
        mask,
      );
      edit().setRunSource(source);
      setSelected(0);
      setView('result');
      const release = spend.hold(estimate.costMicros);
      void run
        .start({
          call: { endpoint: 'edits', body: form, parentImageId: source.galleryId },
          n: params.n,
          model: params.model,
          prompt,
          requestedSize: check.size,
        })
        .finally(release);
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    } finally {
      setPreparing(false);
    }
  };
  const sendNow = () => void send();

  const expand = useOutpaint({
    source,
    blocked: running || problem !== null,
    beforeExpand: () => setTried(true),
    send: () => void send(true),
    onError: setNotice,
  });

  // Escape stops a run only while one is going: otherwise it stays with dialogs and fields.
  useShortcuts(run.phase === 'running' ? { send: sendNow, cancel: run.cancel } : { send: sendNow });

  const editResult = useEditResult({
    prompt: run.request?.prompt ?? null,
    requestId: run.requestId,
    onCanvas: () => setView('mask'),
    onError: setNotice,
  });

  const doneSlots = run.slots.filter((s) => s.state === 'done');
  const compared = run.slots[selected]?.state === 'done' ? run.slots[selected] : doneSlots[0];
  const blockers = [
    source ? null : 'add an image to edit',
    problem,
    ...Object.values(check.issues),
    spend.blocker,
  ].filter((b): b is string => !!b);

  return (
    <Page
      id="edit"
      title="Edit"
      description="Paint the area to change on the first image, describe the change, send."
      ready={pricing.ready}
      className="page-edit"
    >
      <div
        className={`edit-layout ${intake.dropActive ? 'drop-active' : ''}`}
        {...intake.dropZone}
        data-testid="edit-dropzone"
      >
        <form
          className="edit-side panel"
          aria-label="Edit request"
          onKeyDown={(e) => {
            if (isImplicitSubmit(e)) e.preventDefault();
          }}
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <EditSources
            source={source}
            notice={notice}
            onAddFiles={(f) => void intake.addFiles(f)}
            onOpenGallery={() => intake.setGalleryOpen(true)}
          />
          <EditPromptField problem={problem} tried={tried} />
          <MaskSendChoice
            refused={refusal.refused}
            onChange={refusal.clear}
            onSendWithout={() => void send(false)}
          />
          {sendMask && source && maskSourceId === source.id && <MaskPreview source={source} />}
          <EditOptions
            source={source}
            busy={running}
            onExpand={(plan) => void expand(plan)}
            params={params}
            check={check}
            onParams={setParams}
            serverError={run.phase === 'error' ? run.error : null}
          />

          <SendBar
            estimate={estimate}
            priceSource={pricing.priceSource}
            n={params.n}
            label={preparing ? 'Preparing…' : run.phase === 'running' ? 'Editing…' : 'Edit image'}
            disabled={running}
            note={
              <RunNote
                phase={run.phase}
                received={doneSlots.length}
                n={run.slots.length}
                showing={view === 'result'}
                onShow={() => setView('result')}
              />
            }
            submitTestId="edit-submit"
            blockersId="edit-blockers"
            blockers={tried ? blockers : []}
          />
        </form>

        <div className="edit-main" data-view={view}>
          {run.phase !== 'idle' && (
            <EditViewSwitch view={view} working={run.phase === 'running'} onChange={setView} />
          )}
          <EditCanvasPanel source={source} hidden={view !== 'mask'} />

          {run.phase !== 'idle' && (
            <EditResults
              run={run}
              price={price}
              estimate={estimate}
              partialImages={params.stream ? params.partialImages : 0}
              compared={compared}
              beforeUrl={runSource?.url ?? null}
              hidden={view !== 'result'}
              onEdit={(slot) => void editResult(slot)}
              onSelect={setSelected}
              onView={setViewing}
              onResend={sendNow}
            />
          )}
        </div>
      </div>
      {spend.dialog}
      {viewing !== null && (
        <ResultsViewer
          slots={run.slots}
          index={viewing}
          onIndex={setViewing}
          onClose={() => setViewing(null)}
          source={
            runSource ? { key: 'source', url: runSource.url, label: 'Before (the source)' } : null
          }
        />
      )}
      <GalleryPicker
        open={intake.galleryOpen}
        onClose={() => intake.setGalleryOpen(false)}
        onPick={intake.pickFromGallery}
      />
    </Page>
  );
}
