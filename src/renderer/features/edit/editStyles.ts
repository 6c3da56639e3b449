// The Edit page's styles, in the order the rules cascade (they were two files before, split by
// what each part styles).
import './edit.css';
import './mask.css';
import './compare.css';
import './galleryPicker.css';
import './editRun.css';
import './canvas.css';
import './layers.css';
import './outpaint.css';
import './results.css';
import './editFrame.css';
