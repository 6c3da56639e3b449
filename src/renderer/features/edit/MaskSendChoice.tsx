import { CheckboxField } from '../../components/fields';
import { useEditStore } from '../../stores/edit';
import { EMPTY_MASK_MESSAGE } from './mask/exportMask';

/**
 * Whether the painted mask goes with the edit, and, when a send was refused for an empty mask,
 * why, with the way on (send without one).
 */
export function MaskSendChoice(props: {
  refused: boolean;
  /** The choice changed: a refusal no longer applies. */
  onChange: () => void;
  onSendWithout: () => void;
}) {
  const sendMask = useEditStore((s) => s.sendMask);
  const setSendMask = useEditStore((s) => s.setSendMask);
  return (
    <>
      <CheckboxField
        label="Send the painted mask"
        checked={sendMask}
        onChange={(v) => {
          setSendMask(v);
          props.onChange();
        }}
        hint={
          sendMask
            ? 'Only the painted area changes.'
            : 'Without a mask the model may change the whole image.'
        }
        testId="send-mask"
      />
      {props.refused && (
        <div className="notice notice-error" role="alert" data-testid="mask-empty-error">
          <p>{EMPTY_MASK_MESSAGE}</p>
          <button type="button" onClick={props.onSendWithout} data-testid="send-without-mask">
            Send without a mask
          </button>
        </div>
      )}
    </>
  );
}
