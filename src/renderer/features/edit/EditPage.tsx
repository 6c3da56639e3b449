import { useEffect, useId, useState } from 'react';
import { describedBy, CheckboxField, Segmented } from '../../components/fields';
import { Page } from '../../components/Page';
import { isImplicitSubmit } from '../../lib/implicitSubmit';
import { useEditStore } from '../../stores/edit';
import { useMaskStore } from '../../stores/mask';
import { useEditRun, type ImageSlot } from '../../stores/run';
import { promptProblem } from '../generate/composePrompt';
import { requestFields } from '../generate/params';
import { ParamsPanel } from '../generate/ParamsPanel';
import { SendBar, slotFileName } from '../generate/SendParts';
import { ResultsViewer } from '../generate/ResultsViewer';
import { useImagePricing } from '../generate/useImagePricing';
import { useSpendGuard } from '../budget/SpendConfirm';
import { useShortcuts } from '../shell/useShortcuts';
import { ChainTrail } from './ChainTrail';
import { buildEditForm } from './editRequest';
import { EDIT_PREFIX, EditResults } from './EditResults';
import { GalleryPicker } from './GalleryPicker';
import { keepEditWork } from './editWork';
import { EMPTY_MASK_MESSAGE, exportMaskCached } from './mask/exportMask';
import { MaskEditor } from './MaskEditor';
import { MaskPreview } from './MaskPreview';
import { MaskToolbar } from './MaskToolbar';
import { LayerPanel } from './LayerPanel';
import { OutpaintPanel } from './outpaint/OutpaintPanel';
import { useOutpaint } from './outpaint/useOutpaint';
import { useReferenceIntake } from './useReferenceIntake';
import { ReferenceList } from './ReferenceList';
import { linkToGallery, toReference } from './references';
import { RunNote } from './RunNote';
import './edit.css';
import './canvas.css';
import './editFrame.css';

export function EditPage() {
  const references = useEditStore((s) => s.references);
  const prompt = useEditStore((s) => s.prompt);
  const params = useEditStore((s) => s.params);
  const sendMask = useEditStore((s) => s.sendMask);
  const chain = useEditStore((s) => s.chain);
  const runSource = useEditStore((s) => s.runSource);
  const edit = useEditStore.getState;
  const setParams = useEditStore((s) => s.setParams);

  const maskSourceId = useMaskStore((s) => s.sourceId);
  const maskDoc = useMaskStore((s) => s.doc);
  const maskVersion = useMaskStore((s) => s.version);
  const attach = useMaskStore((s) => s.attach);

  const run = useEditRun();
  const [tried, setTried] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** The mask (and its version) that was refused as empty: the refusal lasts until it changes. */
  const [refusedMask, setRefusedMask] = useState<{ doc: unknown; version: number } | null>(null);
  const maskRefused = refusedMask?.doc === maskDoc && refusedMask.version === maskVersion;
  const [preparing, setPreparing] = useState(false);
  const [selected, setSelected] = useState(0);
  /** The main column shows the mask canvas or the run's result, each within the window. */
  const [view, setView] = useState<'mask' | 'result'>('mask');
  /** The result open in the full-window viewer (its slot index). */
  const [viewing, setViewing] = useState<number | null>(null);
  const promptId = useId();

  // The work kept from before a reload comes back, and what is done here is kept from now on.
  useEffect(() => {
    void keepEditWork();
  }, []);

  const source = references[0] ?? null;
  useEffect(() => {
    attach(source?.id ?? null, source?.width ?? 0, source?.height ?? 0);
  }, [attach, source?.id, source?.width, source?.height]);

  const problem = promptProblem(prompt);
  const pricing = useImagePricing(params, prompt, references);
  const { check, price, estimate } = pricing;
  const running = run.phase === 'running' || preparing;
  const spend = useSpendGuard(estimate?.costMicros ?? null);

  const intake = useReferenceIntake(setNotice);

  const send = async (withMask = sendMask) => {
    if (running) return;
    setTried(true);
    setRefusedMask(null);
    if (!source || problem || !check.ok || !check.size || !estimate || spend.blocker) return;
    const doc = useMaskStore.getState().doc;
    let mask: Blob | null = null;
    if (withMask) {
      if (!doc || maskSourceId !== source.id || doc.isEmpty()) {
        setRefusedMask({ doc, version: doc?.version ?? 0 });
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

  const editResult = async (slot: ImageSlot) => {
    if (!slot.blob) return;
    try {
      const reference = await toReference(slot.blob, slotFileName(slot.blob, slot, EDIT_PREFIX));
      // A refinement of the same area: the mask carries over when the result has the same size.
      useMaskStore.getState().carryTo(reference.id, reference.width, reference.height);
      edit().continueWith(reference, run.request?.prompt ?? null);
      linkToGallery(reference.id, run.requestId, slot.index);
      // The next step starts on the canvas, at the top of the page where the tools are.
      setView('mask');
      window.scrollTo({ top: 0 });
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };

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
          <ReferenceList
            onAddFiles={(f) => void intake.addFiles(f)}
            onOpenGallery={() => intake.setGalleryOpen(true)}
          />
          {notice && (
            <p className="notice notice-error" role="alert" data-testid="edit-notice">
              {notice}
            </p>
          )}
          {chain.length > 0 && <ChainTrail />}
          {source && <LayerPanel source={source} />}

          <div className={`field ${tried && problem ? 'field-invalid' : ''}`}>
            <label htmlFor={promptId}>What should change?</label>
            <textarea
              id={promptId}
              rows={3}
              value={prompt}
              placeholder="Replace the sky with a starry night"
              onChange={(e) => edit().setPrompt(e.target.value)}
              aria-invalid={tried && problem ? true : undefined}
              aria-describedby={describedBy(promptId, null, tried ? problem : null)}
              data-testid="edit-prompt"
            />
            <p className="field-error" id={`${promptId}-error`} aria-live="polite">
              {tried ? (problem ?? '') : ''}
            </p>
          </div>

          <CheckboxField
            label="Send the painted mask"
            checked={sendMask}
            onChange={(v) => {
              edit().setSendMask(v);
              setRefusedMask(null);
            }}
            hint={
              sendMask
                ? 'Only the painted area changes.'
                : 'Without a mask the model may change the whole image.'
            }
            testId="send-mask"
          />
          {maskRefused && (
            <div className="notice notice-error" role="alert" data-testid="mask-empty-error">
              <p>{EMPTY_MASK_MESSAGE}</p>
              <button
                type="button"
                onClick={() => void send(false)}
                data-testid="send-without-mask"
              >
                Send without a mask
              </button>
            </div>
          )}
          {sendMask && source && maskSourceId === source.id && <MaskPreview source={source} />}
          {source && (
            <details className="edit-outpaint" data-testid="outpaint-open">
              <summary>Expand the canvas (outpaint)</summary>
              <OutpaintPanel
                key={source.id}
                original={source}
                busy={running}
                onExpand={(plan) => void expand(plan)}
              />
            </details>
          )}

          <details className="edit-params">
            <summary>Parameters</summary>
            <ParamsPanel
              params={params}
              check={check}
              onChange={setParams}
              serverError={run.phase === 'error' ? run.error : null}
              autoHint="Auto keeps the first image's size."
            />
          </details>

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
            <div className="edit-views">
              <Segmented
                label="Show"
                value={view}
                options={[
                  { value: 'mask', label: 'Mask' },
                  {
                    value: 'result',
                    label: run.phase === 'running' ? 'Result (working…)' : 'Result',
                  },
                ]}
                onChange={setView}
                hideLabel
                testId="edit-view"
              />
            </div>
          )}
          <section className="panel canvas-panel" aria-label="Mask" hidden={view !== 'mask'}>
            {source ? (
              <>
                <MaskToolbar />
                {maskSourceId === source.id ? (
                  <MaskEditor source={source} />
                ) : (
                  <div className="mask-viewport" />
                )}
              </>
            ) : (
              <div className="drop-target" data-testid="drop-target">
                <p>
                  <strong>Drop an image here</strong>, paste one, or use <em>Add files</em> or{' '}
                  <em>From gallery</em>.
                </p>
                <p className="muted">
                  PNG, JPEG or WebP under 50 MB. Then paint the area to change.
                </p>
              </div>
            )}
          </section>

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
