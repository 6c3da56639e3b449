import { useState, type DragEvent } from 'react';
import type { Board } from '../../../shared/admin';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { admin } from '../../lib/api/admin';
import { GALLERY_IMAGE_TYPE } from './dragOut';

interface BoardsBarProps {
  boards: Board[];
  /** The board whose images the gallery shows, or '' for all. */
  current: string;
  onCurrent: (id: string) => void;
  /** The boards changed: read them again. */
  onChanged: () => void;
  /** Exports the current board's images as a ZIP with metadata. */
  onExport: () => void;
  exporting: boolean;
  run: (what: string, work: () => Promise<void>) => Promise<void>;
}

/**
 * Boards (issue 22): the person's collections for a project. Each is a drop target for a tile
 * dragged from the grid; one is chosen to show only its images, renamed, deleted or exported.
 */
export function BoardsBar(props: BoardsBarProps) {
  const { boards, current, run } = props;
  const [naming, setNaming] = useState<{ id: string | null; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Board | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const chosen = boards.find((b) => b.id === current) ?? null;

  const save = () =>
    run('board', async () => {
      if (!naming) return;
      const name = naming.name.trim();
      if (!name) return;
      const board = naming.id
        ? await admin.renameBoard(naming.id, name)
        : await admin.createBoard(name);
      setNaming(null);
      props.onChanged();
      props.onCurrent(board.id);
    });

  const drop = (event: DragEvent, board: Board) => {
    const imageId = event.dataTransfer.getData(GALLERY_IMAGE_TYPE);
    setOver(null);
    if (!imageId) return;
    event.preventDefault();
    void run('board', async () => {
      await admin.addToBoard(board.id, [imageId]);
      props.onChanged();
    });
  };

  return (
    <div className="boards-bar" role="region" aria-label="Boards" data-testid="boards-bar">
      <span className="boards-title">Boards</span>
      <button
        type="button"
        className={`board-chip ${current === '' ? 'is-current' : ''}`}
        aria-pressed={current === ''}
        onClick={() => props.onCurrent('')}
        data-testid="board-all"
      >
        All images
      </button>
      {boards.map((board) => (
        <button
          key={board.id}
          type="button"
          className={`board-chip ${board.id === current ? 'is-current' : ''} ${over === board.id ? 'is-over' : ''}`}
          aria-pressed={board.id === current}
          onClick={() => props.onCurrent(board.id)}
          onDragOver={(event) => {
            if (!event.dataTransfer.types.includes(GALLERY_IMAGE_TYPE)) return;
            event.preventDefault();
            event.dataTransfer.dropEffect = 'copy';
            setOver(board.id);
          }}
          onDragLeave={() => setOver(null)}
          onDrop={(event) => drop(event, board)}
          title="Drop images here to add them to this board"
          data-testid="board-chip"
          data-board-id={board.id}
          data-board-name={board.name}
          data-count={board.images}
        >
          {board.name} <span className="muted">{board.images}</span>
        </button>
      ))}
      {naming ? (
        <form
          className="board-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <input
            aria-label={naming.id ? 'New name of the board' : 'Name of the new board'}
            value={naming.name}
            maxLength={100}
            onChange={(event) => setNaming({ ...naming, name: event.target.value })}
            data-testid="board-name"
            autoFocus
          />
          <button type="submit" className="primary" data-testid="board-save">
            {naming.id ? 'Rename' : 'Create'}
          </button>
          <button type="button" onClick={() => setNaming(null)}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          onClick={() => setNaming({ id: null, name: '' })}
          data-testid="board-new"
        >
          New board
        </button>
      )}
      {chosen && !naming && (
        <>
          <button
            type="button"
            onClick={() => setNaming({ id: chosen.id, name: chosen.name })}
            data-testid="board-rename"
          >
            Rename
          </button>
          <button
            type="button"
            disabled={props.exporting || chosen.images === 0}
            onClick={props.onExport}
            title="A ZIP of the board's images, each with its prompt, size, quality, cost and dates"
            data-testid="board-export"
          >
            Export ZIP
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => setDeleting(chosen)}
            data-testid="board-delete"
          >
            Delete board
          </button>
        </>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this board?"
        confirmLabel="Delete board"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await admin.deleteBoard(deleting.id);
          props.onCurrent('');
          props.onChanged();
        }}
      >
        <p>The board goes; its images stay in the gallery.</p>
      </ConfirmDialog>
    </div>
  );
}
