import { render } from 'preact';
import '../shared/styles.css';
import './simulator.css';
import '../shared/policy.css';
import { SimulatorApp } from './simulator-app.tsx';

render(<SimulatorApp />, document.getElementById('app')!);
