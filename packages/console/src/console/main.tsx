import { render } from 'preact';
import '../shared/styles.css';
import './console.css';
import '../shared/policy.css';
import { ConsoleApp } from './console-app.tsx';

render(<ConsoleApp />, document.getElementById('app')!);
