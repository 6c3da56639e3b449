import { Segmented } from '../../components/fields';

export type EditView = 'mask' | 'result';

/** Mask or Result in the main column, once a run has begun. */
export function EditViewSwitch(props: {
  view: EditView;
  working: boolean;
  onChange: (view: EditView) => void;
}) {
  return (
    <div className="edit-views">
      <Segmented
        label="Show"
        value={props.view}
        options={[
          { value: 'mask', label: 'Mask' },
          { value: 'result', label: props.working ? 'Result (working…)' : 'Result' },
        ]}
        onChange={props.onChange}
        hideLabel
        testId="edit-view"
      />
    </div>
  );
}
