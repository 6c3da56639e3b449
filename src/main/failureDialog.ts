import { app, dialog, shell } from 'electron';
import { resetListenAddress } from '../gateway';
import { ACTION_LABELS, describeStartupFailure, type FailureContext } from './startupFailure';

/**
 * Tells the person why Atelier could not start and does what they pick: open the data folder
 * (then quit), reset the saved address and start again, or quit. Exits the app either way.
 */
export async function reportStartupFailure(error: unknown, ctx: FailureContext): Promise<void> {
  const failure = describeStartupFailure(error, ctx);
  const buttons = failure.actions.map((action) => ACTION_LABELS[action]);
  let choice = failure.actions.length - 1;
  try {
    const answer = await dialog.showMessageBox({
      type: 'error',
      title: failure.title,
      message: failure.message,
      detail: failure.detail,
      buttons,
      defaultId: 0,
      cancelId: buttons.length - 1,
      noLink: true,
    });
    choice = answer.response;
  } catch {
    // Before the app is ready only the plain error box can be shown.
    dialog.showErrorBox(failure.title, `${failure.message}\n\n${failure.detail}`);
  }
  const action = failure.actions[choice] ?? 'quit';
  if (action === 'open-data-folder') await shell.openPath(ctx.dataDir);
  if (action === 'reset-address') {
    try {
      await resetListenAddress(ctx.dataDir);
      app.relaunch();
      app.exit(0);
      return;
    } catch (resetError) {
      dialog.showErrorBox(failure.title, `The address could not be reset: ${String(resetError)}`);
    }
  }
  app.exit(1);
}
